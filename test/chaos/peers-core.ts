/**
 * Slow and hostile peers, shared by test/chaos/peers.test.ts and bench/chaos/peers.ts. One https
 * server on loopback plays every peer: sources that trickle one byte a second or send an endless
 * body, and webhook receivers that take 30 s, answer 200 and then stall the body, answer 302, or
 * send a 100 MB body. Transcripts are
 * ordered from the hostile sources (their transcript.failed events go to the hostile receivers),
 * with fetch-source's limits and webhooks.timeout_ms set by the caller. Every fetch must end with
 * its code and every delivery attempt be recorded, each within its limit.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "../../config/loader.js";
import { startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { filesUnder } from "./disk-full-core.js";
import { openChaosServer, type ChaosServer } from "./server.js";

export interface PeerLimits {
  /** fetch-source's with: max_bytes and timeout_seconds. */
  maxBytes: number;
  timeoutSeconds: number;
  /** webhooks.timeout_ms. */
  webhookTimeoutMs: number;
  /** How long the slow receiver takes to answer. */
  slowHookMs: number;
  /** Bytes of the huge receiver's answer. */
  hugeBytes: number;
}

/** Serves every hostile peer; `stop()` ends the trickles and endless bodies still running. */
async function startPeers(limits: PeerLimits, mp3Head: Buffer): Promise<{ server: TestHttpsServer; stop(): void }> {
  const server = await startHttpsServer();
  const timers = new Set<NodeJS.Timeout>();
  const every = (ms: number, fn: () => void, res: { once(e: string, f: () => void): unknown }) => {
    const t = setInterval(fn, ms);
    timers.add(t);
    res.once("close", () => (clearInterval(t), timers.delete(t)));
  };
  server.route("/trickle.mp3", (_req, res) => {
    res.writeHead(200, { "content-type": "audio/mpeg" });
    let i = 0;
    every(1000, () => res.write(mp3Head.subarray(i, ++i)), res);
  });
  server.route("/endless.mp3", (_req, res) => {
    res.writeHead(200, { "content-type": "audio/mpeg" });
    const chunk = Buffer.alloc(64 * 1024, 0xff);
    res.write(mp3Head);
    // Writes as fast as the reader takes, for ever: only the reader's cap ends it.
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on("drain", pump);
    pump();
  });
  server.route("/hook-slow", (req, res) => {
    req.resume();
    const t = setTimeout(() => res.end("ok"), limits.slowHookMs);
    timers.add(t);
    res.once("close", () => clearTimeout(t));
  });
  server.route("/hook-stall", (req, res) => {
    // Answers 200 at once, then never sends the body nor ends it.
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("o");
  });
  server.route("/hook-302", (req, res) => {
    req.resume();
    res.writeHead(302, { location: server.url("/hook-elsewhere") });
    res.end();
  });
  server.route("/hook-huge", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(limits.hugeBytes) });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (!res.destroyed && sent < limits.hugeBytes) {
        sent += chunk.length;
        if (!res.write(sent <= limits.hugeBytes ? chunk : chunk.subarray(0, limits.hugeBytes - sent + chunk.length)))
          return;
      }
      if (sent >= limits.hugeBytes) res.end();
    };
    res.on("drain", pump);
    pump();
  });
  return {
    server,
    stop() {
      for (const t of timers) clearInterval(t);
      timers.clear();
    },
  };
}

/** `ms`: how long the fetch-source step ran, from its record (-1 when not recorded). */
export interface SourceOutcome {
  peer: string;
  status: string;
  code?: string;
  message?: string;
  ms: number;
  partLeft: boolean;
}
export interface AttemptOutcome {
  hook: string;
  event: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response_bytes: number;
}
export interface PeersReport {
  sources: SourceOutcome[];
  attempts: AttemptOutcome[];
  rssMiB: number;
}

export async function runPeers(limits: PeerLimits, opts: { rounds?: number } = {}): Promise<PeersReport> {
  const mp3Head = (await readFile(TEST_MEDIA.jfkMp3)).subarray(0, 4096);
  const peers = await startPeers(limits, mp3Head);
  // The transcript pipeline as shipped, with the caller's limits on fetch-source and no retries.
  const opsDir = await mkdtemp(path.join(os.tmpdir(), "clipd-peers-pipelines-"));
  const shipped = await readFile(path.join(projectRoot(), "pipelines", "transcript.yaml"), "utf8");
  await writeFile(
    path.join(opsDir, "transcript.yaml"),
    shipped.replace(
      /- stage: fetch-source\n\s+retry: \{[^}]*\}/,
      `- stage: fetch-source\n    with: { max_bytes: ${limits.maxBytes}, timeout_seconds: ` +
        `${limits.timeoutSeconds} }\n    retry: { limit: 0 }`,
    ),
  );
  let server: ChaosServer | undefined;
  try {
    server = await openChaosServer("pglite", {
      pipelines: { ops_dir: opsDir },
      network: { allow_loopback: true, extra_ca: peers.server.caPath },
      webhooks: { timeout_ms: limits.webhookTimeoutMs, time_scale: 0.001 },
      server: { public_url: "" },
    });
    const acc = await server.account({ creditCents: 100_000 });
    const auth = { authorization: `Bearer ${acc.live}`, "content-type": "application/json" };
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server!.base}${p}`, {
        method,
        headers: auth,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const hooks = new Map<string, string>();
    for (const name of ["hook-slow", "hook-stall", "hook-302", "hook-huge"]) {
      const r = await call("POST", "/api/v1/webhooks", {
        url: peers.server.url(`/${name}`),
        events: ["transcript.failed"],
      });
      if (r.status !== 201) throw new Error(`webhook ${name}: ${r.status} ${JSON.stringify(r.body)}`);
      hooks.set(r.body.id, name);
    }
    const orders: Array<{ peer: string; id: string }> = [];
    for (let round = 0; round < (opts.rounds ?? 1); round++) {
      for (const peer of ["trickle.mp3", "endless.mp3"]) {
        // A query per order: the same link twice could share one transcript.
        const r = await call("POST", "/api/v1/transcripts", { url: peers.server.url(`/${peer}?n=${round}`) });
        if (r.status !== 202) throw new Error(`transcript ${peer}: ${r.status} ${JSON.stringify(r.body)}`);
        orders.push({ peer, id: r.body.id });
      }
    }
    const sources: SourceOutcome[] = [];
    for (const o of orders) {
      const t = await waitFor(
        async () => {
          const r = await call("GET", `/api/v1/transcripts/${o.id}`);
          return ["failed", "completed"].includes(r.body.status) ? r.body : undefined;
        },
        { what: `transcript from ${o.peer} to end`, timeoutMs: limits.timeoutSeconds * 1000 + 60_000, intervalMs: 100 },
      );
      const { rows } = await server.app.db.query(`select run_id from transcripts where id = $1`, [o.id]);
      const partLeft = (await filesUnder(path.join(server.dataDir, "storage", "runs", rows[0].run_id))).some((f) =>
        f.endsWith(".part"),
      );
      // The fetch step's own time: an order may wait in the queue behind others first.
      const step = (await server.app.runner.getRun(rows[0].run_id))?.steps.find((x) => x.stage === "fetch-source");
      const ms = step?.started_at && step.finished_at ? Date.parse(step.finished_at) - Date.parse(step.started_at) : -1;
      sources.push({ peer: o.peer, status: t.status, code: t.error?.code, message: t.error?.message, ms, partLeft });
    }
    // Every failed transcript's event has its first attempt at every receiver recorded.
    const attemptsNow = async () =>
      (
        await server!.app.db.query(
          `select d.webhook_id, d.event_type, a.attempt, a.status_code, a.error, a.latency_ms, a.response
           from deliveries d join delivery_attempts a on a.delivery_id = d.id where d.webhook_id = any($1::uuid[]) and a.attempt = 1`,
          [[...hooks.keys()]],
        )
      ).rows as any[];
    const want = orders.length * hooks.size;
    const rows = await waitFor(
      async () => {
        const got = await attemptsNow();
        return got.length >= want ? got : undefined;
      },
      {
        what: `${want} first delivery attempts recorded`,
        timeoutMs: limits.webhookTimeoutMs * 2 + 60_000,
        intervalMs: 200,
      },
    );
    const attempts = rows.map((r) => ({
      hook: hooks.get(r.webhook_id)!,
      event: r.event_type,
      attempt: r.attempt,
      status_code: r.status_code,
      error: r.error,
      latency_ms: r.latency_ms,
      response_bytes: Buffer.byteLength(r.response ?? ""),
    }));
    return { sources, attempts, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) };
  } finally {
    peers.stop();
    await server?.close();
    await peers.server.close();
  }
}
