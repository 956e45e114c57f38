/**
 * One fuzz request per draw for an operation: a schema-valid body, query and path (fuzz-schema.ts),
 * then one mutation of the body (wrong types, boundary numbers, long strings, NUL and lone
 * surrogates, deep nesting, unknown or missing fields, bad JSON, wrong content type, chunked
 * framing) and odd path segments, queries, keys and Idempotency-Keys. Everything is drawn by
 * fast-check, so a seed repeats a run exactly.
 */
import fc from "fast-check";
import type { Operation } from "../../facade/registry.js";
import { schemaFields, valueArb, type FuzzPools, type Schema } from "./fuzz-schema.js";

export interface FuzzRequest {
  /** The mutation applied, for the report ("wrong-type body.name", "bad-json"…). */
  label: string;
  method: string;
  /** Path and query, percent-encoded as sent. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Sent without Content-Length (chunked), so the server counts it as it streams. */
  chunked?: boolean;
}

export interface FuzzKeys {
  test: string;
  /** A live key of an account with no credit: live work is refused before anything is fetched. */
  live: string;
  /**
   * A live key of an account with credit: live work starts, and fails at its first connect (links point at a closed
   * port).
   */
  funded: string;
  /** A key of another account that lacks every scope the operations need. */
  noScope: string;
  free: string;
  ops: string;
}

const ODD: unknown[] = [
  null,
  0,
  -1,
  true,
  false,
  [],
  {},
  "",
  " ",
  "0",
  "NaN",
  "Infinity",
  "-Infinity",
  "1e999",
  "0x10",
  "15.0",
  "null",
  "undefined",
  "[]",
  "{}",
  [null],
  { a: 1 },
  "\u0000",
  "\uD800",
  "\uDFFF\uD800",
  "\u202E",
  "\uFEFF",
];
/** Raw JSON number texts, spliced in as written (JSON.stringify cannot write 1e999 or -0). */
const BOUNDARY_RAW = [
  "0",
  "-1",
  "-0",
  "1e308",
  "-1e308",
  "1e999",
  "-1e999",
  "1.0",
  "15.0",
  "1e-400",
  "9007199254740993",
  "179769313486231570000000000000000000000000000000000000000",
  "0.000000000000000000001",
  "2147483648",
  "-2147483649",
];
const BAD_TEXT = ["\u0000", "\uD800", "\uDFFF", "a\u0000b", "\uD83D", "\uFFFE", "\u202E", "%00", "\\u0000"];
const BAD_JSON: Array<string | number[]> = [
  "{",
  '{"a":',
  "{'a':1}",
  "nul",
  "undefined",
  "NaN",
  "[1,]",
  '{"a":1}garbage',
  "\uFEFF{}",
  "null",
  "[]",
  "1",
  '"str"',
  "true",
  " ",
  "{}}",
  '{"a":1e999}',
  "\u0000",
  '{"url":"https://10.0.0.1/","url":1}',
  '{"a":1,"a":{"b":[1,2]}}',
  [0xff, 0xfe, 0xfd],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d],
  [0xef, 0xbb, 0xbf, 0x7b, 0x7d],
];
const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/json-patch+json",
  "application/xml",
  "application/json;;;",
  "*/*",
  "",
];
const ODD_SEGMENTS = [
  "0",
  "-1",
  "NaN",
  "%00",
  "%ZZ",
  "%ED%A0%80",
  "%C0%AF",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e",
  "x".repeat(5000),
  "%E4%B8%AD",
  "null",
  "1e308",
  "00000000-0000-0000-0000-000000000000",
  "AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA",
  "%20",
  "a%2Fb",
];
const ODD_QUERIES = [
  "x=1",
  "%00=%00",
  "a=%ED%A0%80",
  "a=%ZZ",
  "a",
  "=",
  "&&&",
  "a[b]=1",
  "__proto__[x]=1",
  `a=${"q".repeat(8000)}`,
  "limit=-1",
  "limit=1e308",
];
const UNKNOWN_KEYS = ["__proto__", "constructor", "prototype", "extra", "", "a.b", "\u00e9", "url "];
const MUTATIONS = [
  "valid",
  "valid",
  "valid",
  "wrong-type",
  "boundary",
  "long-string",
  "bad-text",
  "deep",
  "unknown-field",
  "missing-required",
  "bad-json",
  "content-type",
  "chunked",
  "not-object",
] as const;

const marker = (i: number) => `\u0001RAW${i}\u0001`;

/** JSON text of `value` with raw markers replaced by their text. */
function serialize(value: unknown, raws: string[]): string {
  let text = JSON.stringify(value) ?? "";
  raws.forEach((raw, i) => (text = text.replace(JSON.stringify(marker(i)), raw)));
  return text;
}

function setAt(target: Record<string, any>, path: string, value: unknown): void {
  const keys = path.split(".");
  let at: any = target;
  for (const k of keys.slice(0, -1)) {
    if (!at[k] || typeof at[k] !== "object") at[k] = {};
    at = at[k];
  }
  Object.defineProperty(at, keys[keys.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

interface Draw {
  mutation: (typeof MUTATIONS)[number];
  a: number;
  b: number;
  c: number;
}

/** The body bytes and label for one draw; `maxJson` is the server's JSON body limit. */
function mutateBody(
  op: Operation,
  valid: unknown,
  d: Draw,
  maxJson: number,
): Pick<FuzzRequest, "body" | "chunked" | "label"> & { contentType?: string | null } {
  const body = structuredClone(valid) as Record<string, any>;
  const fields = schemaFields(op.body);
  const field = fields.length ? pick(fields, d.a) : { path: pick(UNKNOWN_KEYS.slice(3), d.a), schema: {} as Schema };
  const raws: string[] = [];
  const json = () => serialize(body, raws);
  switch (d.mutation) {
    case "valid":
      return { body: json(), label: "valid" };
    case "wrong-type":
      setAt(body, field.path, pick(ODD, d.b));
      return { body: json(), label: `wrong-type ${field.path}` };
    case "boundary": {
      const numeric = fields.filter((f) => f.schema.type === "integer" || f.schema.type === "number");
      const arrays = fields.filter((f) => f.schema.type === "array");
      raws.push(pick(BOUNDARY_RAW, d.b));
      // Inside an array too: items such as clip numbers reach the database as they are.
      if (arrays.length && (d.c % 3 === 0 || !numeric.length)) {
        const at = pick(arrays, d.a).path;
        setAt(body, at, [marker(0)]);
        return { body: json(), label: `boundary ${at}=[${raws[0]}]` };
      }
      const at = numeric.length ? pick(numeric, d.a).path : field.path;
      setAt(body, at, marker(0));
      return { body: json(), label: `boundary ${at}=${raws[0]}` };
    }
    case "long-string": {
      const lengths = [(field.schema.maxLength ?? 100) + 1, 10_000, maxJson - 4096, maxJson + 16];
      const length = pick(lengths, d.b);
      setAt(
        body,
        field.path,
        pick(["a", "\u00e9", "\u{1F600}", "%"], d.c)
          .repeat(Math.ceil(length / 2))
          .slice(0, length),
      );
      return { body: json(), label: `long-string ${field.path} (${length})` };
    }
    case "bad-text":
      if (d.c % 4 === 0) setAt(body, `k${pick(BAD_TEXT, d.b)}`, 1);
      else setAt(body, field.path, `x${pick(BAD_TEXT, d.b)}y`);
      return {
        body: json(),
        label: `bad-text ${d.c % 4 === 0 ? "key" : field.path} ${JSON.stringify(pick(BAD_TEXT, d.b))}`,
      };
    case "deep": {
      const depth = pick([64, 1000, 10_000, 100_000], d.b);
      const raw = d.c % 2 ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      if (d.c % 3 === 0) return { body: raw, label: `deep whole body (${depth})` };
      raws.push(raw);
      setAt(body, d.c % 3 === 1 ? field.path : "nested", marker(0));
      return { body: json(), label: `deep ${d.c % 3 === 1 ? field.path : "nested"} (${depth})` };
    }
    case "unknown-field": {
      const key = pick(UNKNOWN_KEYS, d.b);
      setAt(body, key, pick(ODD, d.c));
      return { body: json(), label: `unknown-field ${JSON.stringify(key)}` };
    }
    case "missing-required": {
      const required = (op.body?.required ?? []) as string[];
      if (required.length && d.b % 3) delete body[pick(required, d.c)];
      else
        return d.b % 2
          ? { body: "{}", label: "missing-required (empty object)" }
          : { body: undefined, label: "missing-required (no body)" };
      return { body: json(), label: `missing-required ${pick(required, d.c)}` };
    }
    case "bad-json": {
      const bad = pick(BAD_JSON, d.b);
      return {
        body: typeof bad === "string" ? bad : new Uint8Array(bad),
        label: `bad-json ${JSON.stringify(typeof bad === "string" ? bad : `bytes ${bad.join(",")}`)}`,
      };
    }
    case "content-type": {
      const type = d.c % 5 === 0 ? null : pick(CONTENT_TYPES, d.b);
      return { body: json(), contentType: type, label: `content-type ${JSON.stringify(type)}` };
    }
    case "chunked":
      return { body: json(), chunked: true, label: "chunked" };
    case "not-object":
      return { body: JSON.stringify(pick([[], [body], "str", 1, null, true], d.b)), label: "not-object" };
  }
}

function pathArb(op: Operation, pools: FuzzPools): fc.Arbitrary<{ path: string; odd: boolean }> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (!names.length) return fc.constant({ path: op.path, odd: false });
  const known = Object.entries(pools.ids).find(([prefix]) => op.path.startsWith(prefix))?.[1] ?? [];
  const good = names.includes("token") ? pools.tokens : known;
  const segment = fc.oneof(
    {
      arbitrary: good.length
        ? fc.constantFrom(...good).map((s) => ({ s, odd: false }))
        : fc.uuid().map((s) => ({ s, odd: false })),
      weight: 5,
    },
    { arbitrary: fc.uuid().map((s) => ({ s, odd: false })), weight: 1 },
    { arbitrary: fc.constantFrom(...ODD_SEGMENTS).map((s) => ({ s, odd: true })), weight: 2 },
    {
      arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map((s) => ({ s: encodeURIComponent(s), odd: true })),
      weight: 1,
    },
  );
  return fc.array(segment, { minLength: names.length, maxLength: names.length }).map((segs) => {
    let i = 0;
    return { path: op.path.replace(/\{\w+\}/g, () => segs[i++]!.s), odd: segs.some((s) => s.odd) };
  });
}

function queryArb(op: Operation, pools: FuzzPools): fc.Arbitrary<string> {
  const junk = fc.constantFrom(...ODD_QUERIES);
  const fromSchema = op.query
    ? valueArb(op.query, "", pools).map((q) =>
        new URLSearchParams(
          Object.entries(q as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]),
        ).toString(),
      )
    : fc.constant("");
  return fc.oneof(
    { arbitrary: fromSchema, weight: 4 },
    { arbitrary: junk, weight: 1 },
    { arbitrary: fc.tuple(fromSchema, junk).map(([a, b]) => [a, b].filter(Boolean).join("&")), weight: 1 },
  );
}

function authArb(op: Operation, kind: string, keys: FuzzKeys): fc.Arbitrary<string | undefined> {
  const junk = fc.constantFrom(
    undefined,
    "Bearer",
    "Bearer svc_live_0000",
    "Bearer svc_test_\u00e9",
    "Basic dXNlcjpwdw==",
    `Bearer ${"k".repeat(5000)}`,
  );
  const bearer = (k: string) => `Bearer ${k}`;
  const weighted = (...pairs: Array<[fc.Arbitrary<string | undefined>, number]>) =>
    fc.oneof(...pairs.map(([arbitrary, weight]) => ({ arbitrary, weight })));
  if (kind === "key")
    return weighted(
      [fc.constant(bearer(keys.test)), 10],
      [fc.constant(bearer(keys.live)), 3],
      [fc.constant(bearer(keys.funded)), 3],
      [fc.constant(bearer(keys.noScope)), 1],
      [fc.constant(bearer(keys.free)), 1],
      [junk, 1],
    );
  if (kind === "ops") return weighted([fc.constant(bearer(keys.ops)), 8], [junk, 2]);
  if (kind === "free-optional")
    return weighted(
      [fc.constant(undefined), 4],
      [fc.constant(bearer(keys.free)), 4],
      [fc.constant(bearer(keys.test)), 1],
      [junk, 1],
    );
  return weighted([fc.constant(undefined), 6], [fc.constant(bearer(keys.free)), 1], [junk, 1]);
}

/** Requests for one operation; `kind` is its auth kind (key, ops, free-optional, public). */
export function requestArb(
  op: Operation,
  kind: string,
  pools: FuzzPools,
  keys: FuzzKeys,
  maxJson: number,
): fc.Arbitrary<FuzzRequest> {
  const draw: fc.Arbitrary<Draw> = fc.record({
    mutation: fc.constantFrom(...MUTATIONS),
    a: fc.nat(),
    b: fc.nat(),
    c: fc.nat(),
  });
  // Mostly a fresh key, as a client should send; sometimes a reused or malformed one.
  const idemValues = fc.oneof(
    { arbitrary: fc.uuid(), weight: 4 },
    { arbitrary: fc.constantFrom("k1", "k2", "x".repeat(300), " ", "a b", "%00"), weight: 1 },
  );
  const idem = op.idempotent ? fc.option(idemValues, { freq: 3 }) : fc.constant(null);
  const valid = op.body ? valueArb(op.body, "", pools) : fc.constant(undefined);
  return fc
    .record({
      path: pathArb(op, pools),
      query: queryArb(op, pools),
      auth: authArb(op, kind, keys),
      idem,
      valid,
      d: draw,
    })
    .map(({ path, query, auth, idem, valid, d }) => {
      const headers: Record<string, string> = {};
      if (auth) headers.authorization = auth;
      if (idem !== null) headers["idempotency-key"] = idem;
      let label = path.odd ? "odd-path" : "";
      let body: FuzzRequest["body"];
      let chunked = false;
      if (op.body) {
        const m = mutateBody(op, valid, d, maxJson);
        body = m.body;
        chunked = !!m.chunked;
        label = [label, m.label].filter(Boolean).join(", ");
        const type = m.contentType === undefined ? "application/json" : m.contentType;
        if (body !== undefined && type !== null) headers["content-type"] = type;
      } else if (op.method === "PUT") {
        body = new Uint8Array(d.b % 4096).fill(d.c % 256);
        headers["content-type"] = pick(["audio/mpeg", "application/octet-stream", "text/plain", "video/mp4"], d.a);
        label = [label, `raw bytes (${d.b % 4096})`].filter(Boolean).join(", ");
      }
      return {
        label: label || "valid",
        method: op.method,
        url: `${path.path}${query ? `?${query}` : ""}`,
        headers,
        body,
        chunked,
      };
    });
}
