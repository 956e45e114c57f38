// The SSRF table (ssrf-vectors.ts, 80+ links) against every field that takes a user URL, on a
// real server over HTTP: each is refused at request time with a 4xx naming its field, and the
// loopback target servers see no connection. Then redirect chains from a loopback redirector
// (allow_loopback on, as it is the only way to reach a test server) to private targets: refused
// at the hop, the runs end failed, and still no connection reaches a target.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRedirects, type RedirectResult } from "./ssrf-redirects.js";
import { runSsrfTable, ssrfFields, ssrfTable, summarize, type SsrfResult } from "./ssrf-core.js";
import { startTargets, type Targets } from "./ssrf-targets.js";
import { redirectTargets, ssrfVectors } from "./ssrf-vectors.js";
import { openChaosServer } from "./server.js";

// The free API's daily allowances would answer 429 before the link is judged after the first try.
const FREE = { free: { files_per_day_anon: 1_000_000, files_per_day_key: 1_000_000, unmeasured_per_day: 1_000_000 } };
const show = (r: SsrfResult) =>
  `${r.field} ${r.vector.url} → ${r.status} ${r.code ?? ""} field=${r.namedField ?? "-"} hits=${r.hits}`;

let targets: Targets;
beforeAll(async () => {
  targets = await startTargets(redirectTargets);
});
afterAll(() => targets?.close());

describe("SSRF vectors at request time (network.allow_loopback off)", () => {
  let results: SsrfResult[];
  beforeAll(async () => {
    const server = await openChaosServer("pglite", FREE);
    try {
      const { live, test } = await server.account({ creditCents: 100_000 });
      results = await runSsrfTable(ssrfFields(server, live, test), ssrfVectors(targets.ports), targets);
    } finally {
      await server.close();
    }
  });

  it("has at least 60 vectors, each tried on all five URL fields (and the account ones with a test key too)", () => {
    const vectors = ssrfVectors(targets.ports);
    expect(vectors.length).toBeGreaterThanOrEqual(60);
    expect(new Set(vectors.map((v) => v.url)).size).toBe(vectors.length);
    expect(results.length).toBe(vectors.length * 8);
  });

  it("refuses every vector with a 4xx naming the field, and no target sees a connection", () => {
    expect(results.filter((r) => !r.held || r.hits).map(show), ssrfTable(summarize(results))).toEqual([]);
    expect(targets.hits()).toBe(0);
  });

  it("answers forbidden_address or invalid_url wherever the link's address or form is judged in the handler", () => {
    // webhooks.url has no pattern in its schema, so every refusal there comes from the URL check.
    const webhook = (r: SsrfResult) => r.field.startsWith("webhooks.url");
    expect(results.filter((r) => !webhook(r) && r.held && !r.codeOk && r.code !== "invalid_request").map(show)).toEqual(
      [],
    );
    expect(results.filter((r) => webhook(r) && !r.codeOk).map(show)).toEqual([]);
  });

  // Links their schema refuses (http:, file:, "HTTPS://", a zone id, …) answer invalid_url too.
  it("answers forbidden_address or invalid_url for every vector on every field", () => {
    expect(results.filter((r) => !r.codeOk).map(show)).toEqual([]);
  });
});

describe("redirect chains from loopback to private targets (network.allow_loopback on)", () => {
  let results: RedirectResult[];
  let hits: number;
  beforeAll(async () => {
    const server = await openChaosServer("pglite", {
      ...FREE,
      network: { allow_loopback: true, extra_ca: targets.caPath },
    });
    try {
      const { live } = await server.account({ creditCents: 100_000 });
      const before = targets.hits();
      results = await runRedirects(server, live, targets, redirectTargets(targets.ports));
      hits = targets.hits() - before;
    } finally {
      await server.close();
    }
  });

  it("refuses every hop to a private target in every field that fetches, and no target sees a connection", () => {
    expect(results.filter((r) => !r.held).map((r) => `${r.field} → ${r.target}: ${r.outcome}`)).toEqual([]);
    expect(hits).toBe(0);
    // The redirector itself was reached: the chains were really followed up to the refused hop.
    expect(targets.redirector.hits()).toBeGreaterThan(0);
  });

  it("ends the runs failed with the guard's refusal (forbidden_address, or bad_url for scheme and credentials)", () => {
    const runs = results.filter((r) => r.field === "transcripts.url" || r.field === "episodes.source_url");
    expect(runs.length).toBe(2 * (redirectTargets(targets.ports).length + 3));
    expect(
      runs
        .filter((r) => !/^failed (forbidden_address|bad_url)$/.test(r.outcome))
        .map((r) => `${r.field} → ${r.target}: ${r.outcome}`),
    ).toEqual([]);
  });
});
