/**
 * Defects the fuzzer has found. Each has a matcher, so the random run in fuzz.test.ts can tell a
 * known one from a new finding, and a direct reproduction. Open ones (KNOWN_DEFECTS) run under
 * `it.fails`; fixed ones (FIXED_DEFECTS) run as plain tests, so each fix stays proved.
 */
import { sampleIds } from "../../facade/testmode.js";
import { judge, type Finding } from "./fuzz-core.js";
import type { ChaosServer } from "./server.js";

export interface KnownDefect {
  id: string;
  /** What is wrong and where it comes from. */
  title: string;
  matches(f: Finding): boolean;
  /** Requests that show it; each answer is judged like a fuzz answer. */
  repro(server: ChaosServer, keys: { test: string }): Promise<Array<{ request: string; status: number; text: string }>>;
}

async function call(server: ChaosServer, method: string, path: string, body?: string, bearer?: string) {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body,
  });
  return { request: `${method} ${path} ${body?.slice(0, 60) ?? ""}`, status: res.status, text: await res.text() };
}

const isDeep = (f: Finding) => /(^|, )deep /.test(f.label);

export const FIXED_DEFECTS: KnownDefect[] = [
  {
    id: "testmode-sample-race-500",
    title:
      "concurrent first reads of a test-mode sample job (GET /jobs/{id}) or transcript " +
      "(GET /transcripts/{id}) answer 500 ENOENT: sampleClipLink and sampleTranscript " +
      "(facade/testmode.ts) check exists() then storage.write() the same key, " +
      "and the parallel writes share one '<key>.part' temp file (daemon/storage/storage.ts), " +
      "so one rename finds it gone",
    matches: (f) => f.kind === "5xx" && !isDeep(f) && (f.op === "getJob" || f.op === "getTranscript"),
    repro: async (s, keys) => {
      const ids = sampleIds();
      const paths = [...ids.jobs.map((id) => `/api/v1/jobs/${id}`), `/api/v1/transcripts/${ids.transcript}`];
      return Promise.all(
        paths.flatMap((p) => Array.from({ length: 6 }, () => call(s, "GET", p, undefined, keys.test))),
      );
    },
  },
  {
    id: "bad-path-escape-no-field",
    title:
      "a path parameter with a malformed percent-escape (%ZZ, %C0%AF, %ED%A0%80) " +
      'answers h3\'s own 400 {code:bad_request, message:"Bad Request"} naming ' +
      "nothing, from getRouterParams' decoding in facade/app.ts; a bad id elsewhere " +
      "is 404 naming the param",
    matches: (f) => f.kind === "no-field" && f.answer.includes('"bad_request"'),
    repro: async (s, keys) => [
      await call(s, "GET", "/api/v1/episodes/%ZZ", undefined, keys.test),
      await call(s, "GET", "/api/v1/files/%C0%AF"),
    ],
  },
  {
    id: "run-error-no-field",
    title:
      "POST /api/v1/runs (ops) answers 400 naming no field for a pipeline that " +
      "does not exist (unknown_pipeline, daemon/engine/plan.ts) and for `set` " +
      "options no step takes (invalid_option): the engine throws RunErrors without " +
      "context and facade/errors.ts maps a RunError to code and message only; " +
      'they should name "pipeline" and "set.<option>"',
    matches: (f) => f.kind === "no-field" && /"(unknown_pipeline|invalid_option)"/.test(f.answer),
    repro: async (s) => {
      const ops = await s.opsToken();
      return [
        await call(s, "POST", "/api/v1/runs", JSON.stringify({ pipeline: "no-such-pipeline" }), ops),
        await call(s, "POST", "/api/v1/runs", JSON.stringify({ pipeline: "t-quick", set: { nope: 1 } }), ops),
      ];
    },
  },
  {
    id: "empty-upload-no-field",
    title:
      "PUT /api/v1/uploads/{token} with an empty body (a live upload link) answers " +
      "400 empty_upload naming no field (facade/operations/files.ts, the two " +
      '`empty_upload` throws); whole-body refusals elsewhere name "body"',
    matches: (f) => f.kind === "no-field" && f.answer.includes('"empty_upload"'),
    repro: async (s) => {
      const { live } = await s.account({ creditCents: 100_000 });
      const made = JSON.parse(
        (await call(s, "POST", "/api/v1/episodes", JSON.stringify({ file_name: "a.mp3" }), live)).text,
      );
      const res = await fetch(made.upload.url, {
        method: "PUT",
        headers: { "content-type": "audio/mpeg" },
        body: new Uint8Array(0),
      });
      return [{ request: "PUT <live upload link> (0 bytes)", status: res.status, text: await res.text() }];
    },
  },
];

/** None open now. */
export const KNOWN_DEFECTS: KnownDefect[] = [];

/** The defects an answer list shows: each answer judged as the fuzzer judges. */
export const faults = (answers: Array<{ request: string; status: number; text: string }>) =>
  answers.filter((a) => judge(a.status, a.text)).map((a) => `${a.request} → ${a.status} ${a.text.slice(0, 200)}`);

export const knownDefectOf = (f: Finding) => KNOWN_DEFECTS.find((d) => d.matches(f));
