/**
 * Runs the SSRF table (ssrf-vectors.ts) against every field that takes a user URL, over HTTP to a
 * real server: POST /api/v1/episodes source_url, POST /api/v1/transcripts url, POST
 * /api/v1/webhooks url, and the free API's url and callback_url. A vector is held when it is
 * refused at request time with a 4xx naming its field; it is lost when it is admitted, answers
 * 5xx or hangs, or when a target server sees a connection. The code is judged apart: it should be
 * forbidden_address or invalid_url.
 */
import type { ChaosServer } from "./server.js";
import type { SsrfVector } from "./ssrf-vectors.js";
import type { Targets } from "./ssrf-targets.js";

export interface SsrfField {
  /** e.g. "episodes.source_url" */
  name: string;
  /** The request field a refusal must name. */
  field: string;
  send(url: string): Promise<{ status: number; body: any }>;
}

export interface SsrfResult {
  field: string;
  vector: SsrfVector;
  status: number;
  code?: string;
  namedField?: string;
  /** Refused at request time, naming the right field. */
  held: boolean;
  /** The refusal's code is forbidden_address or invalid_url. */
  codeOk: boolean;
  /** Connections the targets saw while this vector was tried. */
  hits: number;
}

export const GOOD_CODES = new Set(["forbidden_address", "invalid_url"]);
/** A public IP literal: lets the free API's url pass while its callback_url is tried. */
export const PUBLIC_URL = "https://93.184.215.14/a.mp3";

export async function postJson(
  base: string,
  path: string,
  body: unknown,
  bearer?: string,
  timeoutMs = 60_000,
): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: kept as text */
    }
    return { status: res.status, body: parsed };
  } catch (err: any) {
    return { status: 0, body: { hang: String(err?.name ?? err) } };
  }
}

/**
 * The five user-URL fields, sent with a live key of an account that has credit (so nothing stops
 * at 402); with `test`, the account fields once more with a test key, which must judge links alike.
 */
export function ssrfFields(server: ChaosServer, live: string, test?: string): SsrfField[] {
  const b = server.base;
  const account = (key: string, suffix: string): SsrfField[] => [
    {
      name: `episodes.source_url${suffix}`,
      field: "source_url",
      send: (url) => postJson(b, "/api/v1/episodes", { source_url: url }, key),
    },
    { name: `transcripts.url${suffix}`, field: "url", send: (url) => postJson(b, "/api/v1/transcripts", { url }, key) },
    { name: `webhooks.url${suffix}`, field: "url", send: (url) => postJson(b, "/api/v1/webhooks", { url }, key) },
  ];
  return [
    ...account(live, ""),
    ...(test ? account(test, " (test key)") : []),
    { name: "transcribe.url", field: "url", send: (url) => postJson(b, "/api/v1/transcribe", { url }) },
    {
      name: "transcribe.callback_url",
      field: "callback_url",
      send: (url) => postJson(b, "/api/v1/transcribe", { url: PUBLIC_URL, callback_url: url }),
    },
  ];
}

const fieldOf = (error: any): string | undefined =>
  typeof error?.field === "string" ? error.field : /field "([^"]+)"/.exec(error?.message ?? "")?.[1];

/** Every vector against every field, one at a time, so each target hit belongs to one vector. */
export async function runSsrfTable(
  fields: SsrfField[],
  vectors: SsrfVector[],
  targets: Targets,
): Promise<SsrfResult[]> {
  const results: SsrfResult[] = [];
  for (const f of fields) {
    for (const vector of vectors) {
      const before = targets.hits();
      const got = await f.send(vector.url);
      const error = got.body?.error;
      const namedField = fieldOf(error);
      const held = got.status >= 400 && got.status < 500 && typeof error?.code === "string" && namedField === f.field;
      results.push({
        field: f.name,
        vector,
        status: got.status,
        code: error?.code,
        namedField,
        held,
        codeOk: GOOD_CODES.has(error?.code),
        hits: targets.hits() - before,
      });
    }
  }
  return results;
}

export interface FieldSummary {
  field: string;
  tried: number;
  held: number;
  lost: number;
  /** Held, but with a code other than forbidden_address or invalid_url. */
  otherCode: number;
  hits: number;
}

export function summarize(results: SsrfResult[]): FieldSummary[] {
  const by = new Map<string, FieldSummary>();
  for (const r of results) {
    const s = by.get(r.field) ?? { field: r.field, tried: 0, held: 0, lost: 0, otherCode: 0, hits: 0 };
    s.tried++;
    if (r.held && r.hits === 0) s.held++;
    else s.lost++;
    if (r.held && !r.codeOk) s.otherCode++;
    s.hits += r.hits;
    by.set(r.field, s);
  }
  return [...by.values()];
}

export function ssrfTable(rows: FieldSummary[]): string {
  const head = "| field | tried | held | lost | held with another code | target hits |\n|---|---:|---:|---:|---:|---:|";
  return [
    head,
    ...rows.map((r) => `| ${r.field} | ${r.tried} | ${r.held} | ${r.lost} | ${r.otherCode} | ${r.hits} |`),
  ].join("\n");
}
