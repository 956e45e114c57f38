/**
 * The fuzzing core shared by test/chaos/fuzz.test.ts (50 cases an operation, in npm test) and
 * bench/chaos/fuzz.ts (200 or more, with a table). For every operation in the registry it draws
 * requests (fuzz-mutate.ts), sends them over real HTTP to a real server on loopback and checks
 * each answer: no 5xx, no hang (each request has a generous abort), every 4xx in the
 * `{error:{code,message}}` envelope, every 400 naming a field (`error.field`, or `field "…"` in
 * the message, which is how the operation core words it).
 */
import fc from "fast-check";
import { OPERATIONS } from "../../facade/app.js";
import { isWebOnly } from "../../facade/registry.js";

/**
 * The operations fuzzed: every one served on the API. The website's own (sign-in, keys, billing)
 * answer only under /web behind a session and CSRF; test/api/web-*.test.ts cover their refusals.
 */
export const FUZZED_OPERATIONS = OPERATIONS.filter((op) => !isWebOnly(op));
import { authKind } from "../../facade/core/run-operation.js";
import type { Operation } from "../../facade/registry.js";
import { requestArb, type FuzzRequest } from "./fuzz-mutate.js";
import { prepareFuzz, type FuzzFixtures } from "./fuzz-fixtures.js";
import type { ChaosServer } from "./server.js";

export type FindingKind = "5xx" | "hang" | "envelope" | "no-field" | "transport";

export interface Finding {
  op: string;
  kind: FindingKind;
  label: string;
  request: string;
  status?: number;
  answer: string;
}

export interface OpStats {
  op: string;
  route: string;
  cases: number;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  hangs: number;
  transport: number;
  noField: number;
  badEnvelope: number;
}

export interface FuzzOptions {
  /** Cases per operation. */
  runs: number;
  seed: number;
  /** Abort after this long and count a hang (default 60 s). */
  timeoutMs?: number;
  /** Requests in flight at once for one operation (default 4). */
  concurrency?: number;
  /** Only operations whose id passes. */
  only?: (op: Operation) => boolean;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  stats: OpStats[];
  findings: Finding[];
  ms: number;
}

/** A seed of its own for each operation, so adding one operation does not change the draws of the others. */
export const opSeed = (seed: number, op: Operation) =>
  [...op.id].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, seed | 0);

const describe = (r: FuzzRequest) => {
  const body = r.body === undefined ? "" : typeof r.body === "string" ? r.body : `<${r.body.byteLength} bytes>`;
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
  const headers = Object.entries(r.headers)
    .map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 80)}…` : v}`)
    .join("; ");
  return (
    `${r.method} ${r.url.length > 200 ? `${r.url.slice(0, 200)}…` : r.url} ` +
    `[${headers}]${r.chunked ? " (chunked)" : ""} ${shown}`
  );
};

/** Sends one request; the answer's status and text, or what went wrong on the way. */
export async function send(
  base: string,
  r: FuzzRequest,
  timeoutMs: number,
): Promise<{ status: number; text: string } | { failure: "hang" | "transport"; detail: string }> {
  const init: RequestInit & { duplex?: "half" } = {
    method: r.method,
    headers: r.headers,
    signal: AbortSignal.timeout(timeoutMs),
  };
  if (r.body !== undefined) {
    const bytes = typeof r.body === "string" ? new TextEncoder().encode(r.body) : r.body;
    init.body = r.chunked ? new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }) : bytes;
    if (r.chunked) init.duplex = "half";
  }
  try {
    const res = await fetch(`${base}${r.url}`, init);
    return { status: res.status, text: await res.text() };
  } catch (err: any) {
    if (err?.name === "TimeoutError" || err?.name === "AbortError")
      return { failure: "hang", detail: `no answer in ${timeoutMs} ms` };
    return {
      failure: "transport",
      detail: `${err?.message ?? err}${err?.cause ? ` (${err.cause.code ?? err.cause.message ?? err.cause})` : ""}`,
    };
  }
}

/**
 * The OAuth endpoints a client library talks to answer in OAuth's own error shape (RFC 6749 5.2,
 * RFC 7591 3.2.2: `{error, error_description}`, plus clipd's `field`), which those libraries parse;
 * docs/decisions.md says why. Every other route answers the team's envelope.
 */
const OAUTH_SHAPED = new Set(["oauthRegister", "oauthToken", "oauthRevoke"]);

/** What is wrong with an answer, or undefined; 400s must name a field. */
export function judge(
  status: number,
  text: string,
  op?: string,
): Exclude<FindingKind, "hang" | "transport"> | undefined {
  if (status >= 500) return "5xx";
  if (status < 400) return undefined;
  let error: any;
  let body: any;
  try {
    body = JSON.parse(text);
    error = body?.error;
  } catch {
    return "envelope";
  }
  // (A request the facade refuses before the OAuth handler runs, such as a NUL in a query name,
  // gets the team's envelope there too, which the checks below hold it to.)
  if (op && OAUTH_SHAPED.has(op) && typeof error === "string") {
    if (typeof error !== "string" || typeof body.error_description !== "string") return "envelope";
    if (status === 400 && typeof body.field !== "string" && error !== "invalid_grant") return "no-field";
    return undefined;
  }
  if (typeof error?.code !== "string" || typeof error?.message !== "string") return "envelope";
  // A field named "" (an object key that is the empty string) counts when the message says so.
  const named = typeof error.field === "string" && (error.field !== "" || /field ""/.test(error.message));
  if (status === 400 && !named && !/field "[^"]+"/.test(error.message)) return "no-field";
  return undefined;
}

async function fuzzOperation(
  server: ChaosServer,
  fx: FuzzFixtures,
  op: Operation,
  opts: FuzzOptions,
): Promise<{ stats: OpStats; findings: Finding[] }> {
  const arb = requestArb(op, authKind(op), fx.pools, fx.keys, fx.maxJson);
  const cases = fc.sample(arb, { numRuns: opts.runs, seed: opSeed(opts.seed, op) });
  const stats: OpStats = {
    op: op.id,
    route: `${op.method} ${op.path}`,
    cases: 0,
    s2xx: 0,
    s4xx: 0,
    s5xx: 0,
    hangs: 0,
    transport: 0,
    noField: 0,
    badEnvelope: 0,
  };
  const findings: Finding[] = [];
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) {
      const r = cases[i]!;
      const got = await send(server.base, r, timeoutMs);
      stats.cases++;
      const note = (kind: FindingKind, status: number | undefined, answer: string) =>
        findings.push({
          op: op.id,
          kind,
          label: r.label,
          request: describe(r),
          ...(status !== undefined ? { status } : {}),
          answer: answer.slice(0, 400),
        });
      if ("failure" in got) {
        if (got.failure === "hang") stats.hangs++;
        else stats.transport++;
        note(got.failure, undefined, got.detail);
        continue;
      }
      if (got.status >= 500) stats.s5xx++;
      else if (got.status >= 400) stats.s4xx++;
      else if (got.status >= 200 && got.status < 300) stats.s2xx++;
      const verdict = judge(got.status, got.text, op.id);
      if (verdict === "no-field") stats.noField++;
      if (verdict === "envelope") stats.badEnvelope++;
      if (verdict) note(verdict, got.status, got.text);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  return { stats, findings };
}

/** Fuzzes every operation of the registry (or those `only` admits) against `server`. */
export async function runFuzz(server: ChaosServer, opts: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const fx = await prepareFuzz(server);
  const stats: OpStats[] = [];
  const findings: Finding[] = [];
  for (const op of FUZZED_OPERATIONS.filter(opts.only ?? (() => true))) {
    await fx.beforeOperation(op.path);
    const r = await fuzzOperation(server, fx, op, opts);
    stats.push(r.stats);
    findings.push(...r.findings);
  }
  return { seed: opts.seed, runs: opts.runs, stats, findings, ms: Date.now() - started };
}

/** The per-operation table, as Markdown. */
export function fuzzTable(report: FuzzReport): string {
  const head =
    "| operation | route | cases | 2xx | 4xx | 5xx | hangs | transport errors " +
    "| 400s without field | bad envelope |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|";
  const rows = report.stats.map(
    (s) =>
      `| ${s.op} | \`${s.route}\` | ${s.cases} | ${s.s2xx} | ${s.s4xx} | ${s.s5xx} ` +
      `| ${s.hangs} | ${s.transport} | ${s.noField} | ${s.badEnvelope} |`,
  );
  const sum = (k: keyof OpStats) => report.stats.reduce((n, s) => n + (s[k] as number), 0);
  const total =
    `| **all** | | ${sum("cases")} | ${sum("s2xx")} | ${sum("s4xx")} | ${sum("s5xx")} ` +
    `| ${sum("hangs")} | ${sum("transport")} | ${sum("noField")} | ${sum("badEnvelope")} |`;
  return [head, ...rows, total].join("\n");
}
