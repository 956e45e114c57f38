// SSRF through DNS, which the vector table cannot show on a machine whose resolver answers every
// miss at once: a resolver that does not answer in time (EAI_AGAIN) or fails (EAI_FAIL), and a
// name that answers a public address first and loopback afterwards (DNS rebinding). The server
// runs in this process, so its resolver is replaced here for names under .clipd-dns-test only.
import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/wait.js";
import { postJson, ssrfFields, type SsrfField } from "./ssrf-core.js";
import { startTargets, type Targets } from "./ssrf-targets.js";
import { openChaosServer, type ChaosServer } from "./server.js";

const ZONE = ".clipd-dns-test";
const original = dns.promises.lookup;
/** Answers given per rebinding name so far. */
const asked = new Map<string, number>();

function fakeLookup(host: string, opts?: any): Promise<any> {
  if (!host.endsWith(ZONE)) return (original as any).call(dns.promises, host, opts);
  const fail = (code: string) =>
    Promise.reject(Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, hostname: host }));
  if (host.startsWith("slow.")) return fail("EAI_AGAIN");
  if (host.startsWith("servfail.")) return fail("EAI_FAIL");
  // rebind-<n>: public the first time it is asked, loopback ever after.
  const n = (asked.get(host) ?? 0) + 1;
  asked.set(host, n);
  const address = n === 1 ? "93.184.215.14" : "127.0.0.1";
  return Promise.resolve(opts?.all ? [{ address, family: 4 }] : { address, family: 4 });
}

let targets: Targets;
let server: ChaosServer;
let live: string;
let fields: SsrfField[];
beforeAll(async () => {
  (dns.promises as any).lookup = fakeLookup;
  targets = await startTargets(() => []);
  server = await openChaosServer("pglite", { free: { files_per_day_anon: 1_000_000, unmeasured_per_day: 1_000_000 } });
  live = (await server.account({ creditCents: 100_000 })).live;
  fields = ssrfFields(server, live);
});
afterAll(async () => {
  // Runs still retrying their fetch resolve through the fake too, so nothing may have connected.
  expect(targets.hits()).toBe(0);
  (dns.promises as any).lookup = original;
  await server?.close();
  await targets?.close();
});

/**
 * After an admitted link: its run (or webhook test delivery) must end without reaching anything.
 * With `wait` false a run is only recorded as started: a DNS error is retryable, so the fetch
 * step runs its whole retry schedule (about two minutes) before the run fails.
 */
async function settle(f: SsrfField, body: any, wait = true): Promise<string> {
  const b = server.base;
  if (!wait && (f.name === "episodes.source_url" || f.name === "transcripts.url")) return "started";
  const get = (path: string) =>
    fetch(`${b}${path}`, { headers: { authorization: `Bearer ${live}` } }).then((r) => r.json() as any);
  const final = (path: string) =>
    waitFor(
      async () => ((v) => (["failed", "completed", "ready"].includes(v.status) ? v : undefined))(await get(path)),
      { what: `${f.name} run`, timeoutMs: 120_000, intervalMs: 200 },
    );
  if (f.name === "episodes.source_url")
    return ((v) => `${v.status} ${v.failure?.code ?? v.error?.code ?? ""}`)(
      await final(`/api/v1/episodes/${body.episode_id}`),
    );
  if (f.name === "transcripts.url")
    return ((v) => `${v.status} ${v.error?.code ?? ""}`)(await final(`/api/v1/transcripts/${body.id}`));
  if (f.name === "webhooks.url") {
    const sent = await postJson(b, `/api/v1/webhooks/${body.id}/test`, {}, live);
    await fetch(`${b}/api/v1/webhooks/${body.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${live}` },
    }).then((r) => r.arrayBuffer());
    return `delivered=${sent.body?.delivered}`;
  }
  return "admitted";
}

describe("a resolver that does not answer", () => {
  for (const host of [`slow${ZONE}`, `servfail${ZONE}`]) {
    // Any DNS failure at request time is a refusal naming the field (daemon/net/public-url.ts).
    it(`refuses https://${host}/ at request time in every field, naming it`, async () => {
      const answers: string[] = [];
      for (const f of fields) {
        const got = await f.send(`https://${host}:${targets.ports.https}/a.mp3`);
        if (!(got.status >= 400 && got.status < 500 && got.body?.error?.field === f.field))
          answers.push(`${f.name} → ${got.status} ${got.body?.error?.code ?? ""}`);
      }
      expect(answers).toEqual([]);
    });

    // CHAOS_SLOW=1 waits for the admitted runs to fail (minutes); npm test checks what answers at once.
    const slow = process.env.CHAOS_SLOW === "1";
    it(
      `never reaches a target through https://${host}/, and what was admitted ` +
        `${slow ? "ends failed" : "is refused when fetched"}`,
      async () => {
        const outcomes: string[] = [];
        for (const f of fields.filter((f) => f.name !== "transcribe.callback_url")) {
          const got = await f.send(`https://${host}:${targets.ports.https}/a.mp3`);
          if (got.status >= 500 || got.status === 0) outcomes.push(`${f.name} → ${got.status}`);
          else if (got.status < 300) outcomes.push(`${f.name} admitted → ${await settle(f, got.body, slow)}`);
        }
        expect(outcomes.filter((o) => !/ → (failed|delivered=false|started)/.test(o))).toEqual([]);
        expect(targets.hits()).toBe(0);
      },
    );
  }
});

describe("DNS rebinding: public when checked, loopback when fetched", () => {
  it(
    "admits the link (it is public when asked) but the fetch re-resolves, refuses " + "loopback and reaches nothing",
    async () => {
      const outcomes: string[] = [];
      for (const [i, f] of fields.filter((f) => f.name !== "transcribe.callback_url").entries()) {
        const got = await f.send(`https://rebind-${i}${ZONE}:${targets.ports.https}/a.mp3`);
        outcomes.push(
          got.status < 300
            ? `${f.name} admitted → ${await settle(f, got.body)}`
            : `${f.name} → ${got.status} ${got.body?.error?.code ?? ""}`,
        );
      }
      expect(outcomes).toEqual([
        "episodes.source_url admitted → failed forbidden_address",
        "transcripts.url admitted → failed forbidden_address",
        "webhooks.url admitted → delivered=false",
        "transcribe.url → 400 forbidden_address",
      ]);
      expect(targets.hits()).toBe(0);
    },
  );
});
