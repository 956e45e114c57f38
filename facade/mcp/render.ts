/**
 * A tool's answer as MCP content: the operation's JSON body as structuredContent (it matches the
 * tool's outputSchema) plus a text block a model can act on, and a refusal as isError with the
 * HTTP API's `{error:{code,message,…}}` envelope as its text. The envelope is not
 * structuredContent because clients check that against the success schema.
 *
 * Many clients hand the model only the text, so it is never a pointer elsewhere: the whole JSON
 * when it is small, else a compact JSON that keeps every id, number, status, code and link and
 * cuts only prose. Large bodies (a transcript's text, a clip's captions, an episode's clips) are
 * also linked as resources the client can read whole.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Answers up to this many characters go in the text whole. */
export const TEXT_LIMIT = 4000;
/** Prose longer than this is cut in the compact text (ids, statuses and links never are). */
const PROSE_CHARS = 120;
/** Keys whose strings are kept whole: ids, refs, statuses, codes, kinds, links, times, cursors. */
const KEEP_WHOLE = new RegExp(
  "(^|_)(id|ref|status|state|code|kind|mode|url|uri|cursor|at|seconds|cents|field|secret|format|stage|name)$" +
    "|^(key|number|style|events?)$",
);

export function renderAnswer(
  tool: string,
  answer: { status: number; body: unknown; headers: Headers },
): CallToolResult {
  const body = answer.body as Record<string, unknown>;
  const json = JSON.stringify(body);
  const text = json.length <= TEXT_LIMIT ? json : compactText(body);
  const replayed = answer.headers.get("idempotent-replayed") === "true";
  return {
    content: [{ type: "text", text }, ...resourceLinks(tool, body)],
    structuredContent: body,
    _meta: { "clipd/status": answer.status, ...(replayed ? { "clipd/idempotent_replayed": true } : {}) },
  };
}

/** The answer with long prose cut and said so; everything a model acts on stays. */
export function compactText(body: Record<string, unknown>): string {
  const cut = (v: unknown, key: string): unknown => {
    if (typeof v === "string") {
      if (KEEP_WHOLE.test(key) || v.length <= PROSE_CHARS) return v;
      return `${v.slice(0, PROSE_CHARS)}… (${v.length} characters in all)`;
    }
    if (Array.isArray(v)) {
      // Lists of prose (a clip's reasons) keep their first items; lists of things keep every one.
      if (v.every((x) => typeof x === "string") && !KEEP_WHOLE.test(key) && v.length > 3)
        return [...v.slice(0, 3).map((x) => cut(x, key)), `… ${v.length - 3} more`];
      return v.map((x) => cut(x, key));
    }
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, k)]));
    return v;
  };
  return `The answer, long prose cut (structuredContent holds it whole):\n${JSON.stringify(cut(body, ""))}`;
}

export function renderError(status: number, envelope: unknown): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    _meta: { "clipd/status": status },
  };
}

const link = (uri: string, name: string, mimeType: string) => ({ type: "resource_link" as const, uri, name, mimeType });

/** Finished work is also a resource (resources.ts): the answer links to it. */
function resourceLinks(tool: string, body: Record<string, unknown>): CallToolResult["content"] {
  if ((tool === "get_transcript" || tool === "create_transcript") && body.status === "completed") {
    return (["vtt", "srt", "txt"] as const).map((f) =>
      link(
        `clipd://transcripts/${String(body.id)}.${f}`,
        `${typeof body.name === "string" ? body.name : "transcript"}.${f}`,
        f === "vtt" ? "text/vtt" : f === "srt" ? "application/x-subrip" : "text/plain",
      ),
    );
  }
  if ((tool === "get_episode" || tool === "wait_for_episode") && body.status === "ready")
    return [
      link(
        `clipd://episodes/${String(body.episode_id)}/clips`,
        `clips of ${typeof body.name === "string" ? body.name : String(body.episode_id)}`,
        "application/json",
      ),
    ];
  if (tool === "clip_captions" && typeof body.clip_id === "string")
    return [link(`clipd://clips/${body.clip_id}/captions`, `captions of clip ${body.clip_id}`, "application/json")];
  return [];
}
