/**
 * Slow and hostile peers bench (test/chaos/peers-core.ts) with limits of the kind a server runs
 * with: fetch-source max_bytes PEERS_MAX_MB (default 500 MB) and timeout_seconds PEERS_TIMEOUT_S
 * (default 60), webhooks.timeout_ms 10000 (the default). Per round: a source trickling one byte a
 * second, an endless source, and their transcript.failed events sent to receivers that take 30 s,
 * stall after their headers, answer 302, or send 100 MB. Prints each outcome and tried / held / lost.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/peers.js
 *
 * PEERS_ROUNDS (default 3) orders of each source. Exits 1 when anything did not hold.
 */
import { runPeers } from "../../test/chaos/peers-core.js";

const limits = {
  maxBytes: Number(process.env.PEERS_MAX_MB ?? 500) * 1024 * 1024,
  timeoutSeconds: Number(process.env.PEERS_TIMEOUT_S ?? 60),
  webhookTimeoutMs: 10_000,
  slowHookMs: 30_000,
  hugeBytes: 100 * 1024 * 1024,
};
const rounds = Number(process.env.PEERS_ROUNDS ?? 3);
console.log(
  `peers: ${rounds} rounds; fetch-source max_bytes ${limits.maxBytes}, timeout_seconds ` +
    `${limits.timeoutSeconds}; webhooks.timeout_ms ${limits.webhookTimeoutMs}`,
);
const started = Date.now();
const r = await runPeers(limits, { rounds });
let tried = 0;
const lost: string[] = [];
const check = (what: string, ok: boolean, detail: unknown) => {
  tried++;
  if (!ok) lost.push(`${what}: ${JSON.stringify(detail)}`);
};
for (const s of r.sources) {
  const want = s.peer === "trickle.mp3" ? "source_timeout" : "too_big";
  // The trickle is cut at timeout_seconds (a little after: the step's bookkeeping); the endless one by the cap, sooner.
  const bound = limits.timeoutSeconds * 1000 + 5_000;
  check(`source ${s.peer}`, s.status === "failed" && s.code === want && !s.partLeft && s.ms >= 0 && s.ms < bound, s);
  console.log(
    `  source   ${s.peer.padEnd(12)} ${s.status} ${s.code}, fetch step ran ` +
      `${(s.ms / 1000).toFixed(1)} s, partial file left: ${s.partLeft}`,
  );
}
for (const a of r.attempts) {
  const ok =
    a.hook === "hook-slow"
      ? a.status_code === null &&
        /no answer within/.test(a.error ?? "") &&
        a.latency_ms < limits.webhookTimeoutMs + 2000
      : a.hook === "hook-stall"
        ? (a.status_code === null || a.error !== null) && a.latency_ms < limits.webhookTimeoutMs + 2000
        : a.hook === "hook-302"
          ? a.status_code === 302
          : a.status_code === 200 && a.response_bytes <= 1024 && a.latency_ms < limits.webhookTimeoutMs;
  check(`delivery ${a.hook}`, ok, a);
  console.log(
    `  delivery ${a.hook.padEnd(12)} attempt ${a.attempt}: status ${a.status_code}, ` +
      `${a.latency_ms} ms, ${a.response_bytes} bytes kept${a.error ? `, ${a.error}` : ""}`,
  );
}
console.log(
  `tried ${tried}  held ${tried - lost.length}  lost ${lost.length}  (${((Date.now() - started) / 1000).toFixed(1)} ` +
    `s, RSS at the end ${r.rssMiB} MiB)`,
);
for (const l of lost) console.log(`  ${l}`);
process.exitCode = lost.length ? 1 : 0;
