/**
 * MCP resources: what a client may read without a tool call. Finished transcripts as files
 * (clipd://transcripts/{id}.vtt, .srt, .txt), an episode's clips (clipd://episodes/{id}/clips),
 * a clip's captions (clipd://clips/{id}/captions) and the caption styles (clipd://styles). Each
 * read runs an operation through runOperation, so
 * it is authenticated, scoped, rate limited and refused exactly like the tools: the clips and the
 * styles are get_episode's and list_styles' answers; the transcript files come from the one
 * operation below, which is the tool server's own (it has no HTTP route: the API links to files).
 */
import { transcriptKeys } from "../../daemon/account/transcripts.js";
import { StringEnum } from "../../daemon/engine/stage.js";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam } from "../registry.js";
import { sampleIds, sampleTranscriptFiles } from "../testmode.js";

export const TRANSCRIPT_FORMATS = { txt: "text/plain", srt: "application/x-subrip", vtt: "text/vtt" } as const;
type Format = keyof typeof TRANSCRIPT_FORMATS;
/** The formats as the path parameter's enum, in TRANSCRIPT_FORMATS's order. */
const FORMAT_NAMES = ["txt", "srt", "vtt"] as const satisfies readonly Format[];

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "clipd://transcripts/{id}.{format}",
    name: "transcript",
    title: "A finished transcript",
    description:
      "A completed transcript's file; format is txt, srt or vtt (the id is create_transcript's). " +
      "Needs the transcripts scope.",
    mimeType: "text/vtt",
  },
  {
    uriTemplate: "clipd://episodes/{id}/clips",
    name: "episode-clips",
    title: "An episode's clips",
    description: "The clips found in an episode (JSON, as in get_episode). Needs the clips.read scope.",
    mimeType: "application/json",
  },
  {
    uriTemplate: "clipd://clips/{id}/captions",
    name: "clip-captions",
    title: "A clip's captions",
    description: "Every caption of a clip with its id and times (JSON, as clip_captions). Needs the clips.read scope.",
    mimeType: "application/json",
  },
];
export const STYLES_RESOURCE = {
  uri: "clipd://styles",
  name: "styles",
  title: "Caption styles",
  description: "The caption styles a clip can take (JSON, as list_styles answers). Needs the clips.read scope.",
  mimeType: "application/json",
};

/** Which resource a URI names, or undefined. */
export function parseResourceUri(
  uri: string,
):
  | { kind: "transcript"; id: string; format: Format }
  | { kind: "clips" | "captions"; id: string }
  | { kind: "styles" }
  | undefined {
  if (uri === STYLES_RESOURCE.uri) return { kind: "styles" };
  const t = /^clipd:\/\/transcripts\/([^/]+)\.(txt|srt|vtt)$/.exec(uri);
  if (t) return { kind: "transcript", id: t[1]!, format: t[2] as Format };
  const c = /^clipd:\/\/episodes\/([^/]+)\/clips$/.exec(uri);
  if (c) return { kind: "clips", id: c[1]! };
  const k = /^clipd:\/\/clips\/([^/]+)\/captions$/.exec(uri);
  if (k) return { kind: "captions", id: k[1]! };
  return undefined;
}

/** A completed transcript's file, for the transcript resources. */
export const readTranscriptFile = defineOperation({
  id: "readTranscriptFile",
  method: "GET",
  path: "/mcp/transcripts/{id}.{format}",
  summary: "A completed transcript's file (MCP resource only)",
  scope: "transcripts",
  internal: true,
  params: { id: uuidParam, format: StringEnum(FORMAT_NAMES) },
  responses: { 200: { description: "The file's text" } },
  async handler(ctx) {
    const auth = ctx.auth!;
    const id = ctx.params.id.toLowerCase();
    const format = ctx.params.format;
    const notFound = () =>
      new ApiError(404, "not_found", `transcript ${id} does not exist on this account`, { field: "id" });
    if (!auth.livemode) {
      if (id !== sampleIds().transcript) throw notFound();
      return { text: sampleTranscriptFiles()[format] };
    }
    const t = await ctx.services.transcripts.get(auth.account.id, id);
    if (!t || !t.livemode) throw notFound();
    if (t.status !== "completed")
      throw new ApiError(
        409,
        "transcript_not_ready",
        `transcript ${id} is ${t.status}; read it once get_transcript says completed`,
        { status: t.status },
      );
    const key = t.result?.files?.[format] ?? transcriptKeys(t.run_id ?? t.id)[format];
    return { text: (await ctx.services.storage.read(key)).toString("utf8") };
  },
});
