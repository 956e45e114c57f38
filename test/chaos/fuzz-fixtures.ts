/**
 * What the fuzzer draws from on the server under test: keys (test; live on an account with no
 * credit, so live work is refused before anything runs; live on one with credit; a narrow-scoped
 * key; a free key; the ops token), ids that exist (test-mode samples, a webhook, a brand kit, an ops run, a free job)
 * and signed tokens,
 * so requests reach the handlers and not only the 404s. Links point at a loopback port that is
 * closed, so whatever live work does start fails at its first connect.
 */
import net from "node:net";
import { MAX_JSON_BYTES } from "../../facade/app.js";
import { sampleIds } from "../../facade/testmode.js";
import type { FuzzKeys } from "./fuzz-mutate.js";
import type { FuzzPools } from "./fuzz-schema.js";
import type { ChaosServer } from "./server.js";

export interface FuzzFixtures {
  pools: FuzzPools;
  keys: FuzzKeys;
  maxJson: number;
  /** Puts back what earlier operations' cases may have removed (DELETE /webhooks/{id} deletes the fixture). */
  beforeOperation(path: string): Promise<void>;
}

/** A loopback port nothing listens on (taken, then given back). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function post(server: ChaosServer, path: string, body: unknown, bearer?: string): Promise<any> {
  const res = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  return res.json().catch(() => ({}));
}

const tokenOf = (link: unknown, kind: "uploads" | "files") =>
  typeof link === "string" ? new RegExp(`/api/v1/${kind}/([^/?#]+)`).exec(link)?.[1] : undefined;

/** Keys, ids and links for the fuzzer; the server must run with network.allow_loopback on. */
export async function prepareFuzz(server: ChaosServer): Promise<FuzzFixtures> {
  const port = await closedPort();
  const urls = [
    `https://127.0.0.1:${port}/a.mp3`,
    `https://localhost:${port}/talk.wav`,
    `https://127.0.0.1:${port}/%00.mp3`,
    "https://10.0.0.1/a.mp3",
    "https://no-such-host.invalid/a.mp3",
  ];
  const main = await server.account({ creditCents: 0 });
  const narrow = await server.account({ scopes: ["clips.read"] });
  const free = String(
    (await post(server, "/api/v1/transcribe/keys", { email: "fuzz@example.com" })).key ?? "svc_free_missing",
  );
  const sink = await server.account();
  const samples = sampleIds();
  const styleList = await fetch(`${server.base}/api/v1/styles`, { headers: { authorization: `Bearer ${main.test}` } })
    .then((r) => r.json() as any)
    .catch(() => ({}));
  const styles = (styleList?.styles ?? [])
    .flatMap((st: any) => [st.id, st.name])
    .filter((x: unknown): x is string => typeof x === "string");

  const auth = { authorization: `Bearer ${main.test}` };
  // Clears the account's webhooks (at most 5 are kept) and makes one to aim the {id} operations at.
  const freshWebhook = async () => {
    const listed = await fetch(`${server.base}/api/v1/webhooks`, { headers: auth }).then((r) => r.json() as any);
    for (const w of listed?.webhooks ?? [])
      await fetch(`${server.base}/api/v1/webhooks/${w.id}`, { method: "DELETE", headers: auth }).then((r) =>
        r.arrayBuffer(),
      );
    return (await post(server, "/api/v1/webhooks", { url: urls[0] }, main.test))?.id;
  };
  // The same for brand kits (at most brand.kits_per_account are kept): the account's one kit.
  const freshKit = async () => {
    const listed = await fetch(`${server.base}/api/v1/brand-kits`, { headers: auth }).then((r) => r.json() as any);
    for (const k of listed?.brand_kits ?? [])
      await fetch(`${server.base}/api/v1/brand-kits/${k.brand_kit_id}`, { method: "DELETE", headers: auth }).then((r) =>
        r.arrayBuffer(),
      );
    return (await post(server, "/api/v1/brand-kits", { name: "fuzz" }, main.test))?.brand_kit_id;
  };
  const upload = await post(server, "/api/v1/episodes", { file_name: "a.mp3" }, main.test);
  // A live episode awaiting its upload: nothing runs until the file comes.
  const funded = await server.account({ creditCents: 100_000 });
  const liveUpload = await post(server, "/api/v1/episodes", { file_name: "a.mp3" }, funded.live);
  const transcript = await fetch(`${server.base}/api/v1/transcripts/${samples.transcript}`, {
    headers: { authorization: `Bearer ${main.test}` },
  })
    .then((r) => r.json() as any)
    .catch(() => ({}));
  const ops = await server.opsToken();
  const run = await post(server, "/api/v1/runs", { pipeline: "t-quick", input: {} }, ops);
  const job = await post(server, "/api/v1/transcribe", { url: urls[0] }, free);

  const tokens = [
    tokenOf(upload?.upload?.url, "uploads"),
    tokenOf(liveUpload?.upload?.url, "uploads"),
    ...Object.values(transcript?.downloads ?? {}).map((l) => tokenOf(l, "files")),
  ].filter((t): t is string => !!t);
  const maxJson: number = server.app.config.server.max_json_bytes ?? MAX_JSON_BYTES;
  const known = (...ids: unknown[]) => ids.filter((id): id is string => typeof id === "string" && id.length > 0);
  const pools: FuzzPools = {
    urls,
    tokens,
    styles: [...styles, "nonexistent-style"],
    sinkAccount: sink.accountId,
    pipelines: ["t-quick", "t-fail"],
    ids: {
      "/api/v1/runs/": known(run?.id ?? run?.run_id),
      "/api/v1/episodes/": known(samples.episode, liveUpload?.episode_id),
      "/api/v1/jobs/": known(...samples.jobs),
      "/api/v1/clips/": known(...samples.clips),
      "/api/v1/transcripts/": known(samples.transcript),
      "/api/v1/webhooks/": known(await freshWebhook()),
      "/api/v1/brand-kits/": known(await freshKit()),
      "/api/v1/transcribe/": known(job?.id),
    },
  };
  return {
    maxJson,
    pools,
    async beforeOperation(path) {
      if (path.startsWith("/api/v1/webhooks/{")) pools.ids["/api/v1/webhooks/"] = known(await freshWebhook());
      if (path.startsWith("/api/v1/brand-kits")) pools.ids["/api/v1/brand-kits/"] = known(await freshKit());
    },
    keys: { test: main.test, live: main.live, funded: funded.live, noScope: narrow.test, free, ops },
  };
}
