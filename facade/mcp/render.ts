/**
 * A tool's answer as MCP content: the operation's JSON body as structuredContent (it matches the
 * tool's outputSchema) plus a short text for clients that show only text, and a refusal as
 * isError with the HTTP API's `{error:{code,message,…}}` envelope as its text. The envelope is not
 * structuredContent because clients check that against the success schema.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Answers longer than this are summarised in the text; the whole answer is in structuredContent. */
const TEXT_LIMIT = 4000;
const SUMMARY_FIELDS = ["episode_id", "job_id", "clip_id", "id", "status", "download_url", "charged_cents", "livemode"];

export function renderAnswer(tool: string, answer: { status: number; body: any; headers: Headers }): CallToolResult {
  const body = answer.body as Record<string, unknown>;
  const json = JSON.stringify(body);
  const summary = SUMMARY_FIELDS.filter((k) => body[k] !== undefined).map(
    (k) => `${k}: ${typeof body[k] === "string" ? body[k] : JSON.stringify(body[k])}`,
  );
  const lines = [
    typeof body.message === "string" ? body.message : `${tool} answered ${answer.status}`,
    ...(summary.length ? [summary.join(", ")] : []),
  ];
  lines.push(
    json.length <= TEXT_LIMIT ? json : `(the whole answer, ${json.length} characters, is in structuredContent)`,
  );
  const replayed = answer.headers.get("idempotent-replayed") === "true";
  return {
    content: [{ type: "text", text: lines.join("\n") }, ...resourceLinks(tool, body)],
    structuredContent: body,
    _meta: { "clipd/status": answer.status, ...(replayed ? { "clipd/idempotent_replayed": true } : {}) },
  };
}

export function renderError(status: number, envelope: unknown): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    _meta: { "clipd/status": status },
  };
}

/** Finished work is also a resource (resources.ts): the answer links to it. */
function resourceLinks(tool: string, body: Record<string, any>): CallToolResult["content"] {
  if ((tool === "get_transcript" || tool === "create_transcript") && body.status === "completed") {
    return (["vtt", "srt", "txt"] as const).map((f) => ({
      type: "resource_link" as const,
      uri: `clipd://transcripts/${body.id}.${f}`,
      name: `${body.name ?? "transcript"}.${f}`,
      mimeType: f === "vtt" ? "text/vtt" : f === "srt" ? "application/x-subrip" : "text/plain",
    }));
  }
  if (tool === "get_episode" && body.status === "ready") {
    return [
      {
        type: "resource_link" as const,
        uri: `clipd://episodes/${body.episode_id}/clips`,
        name: `clips of ${body.name ?? body.episode_id}`,
        mimeType: "application/json",
      },
    ];
  }
  return [];
}
