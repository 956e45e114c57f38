/**
 * probe: reads the source's container with ffprobe and decides whether clipd can work with it.
 *
 * Refusals are final (non-retryable) and name the limit: an extension outside the accepted list,
 * a file over `max_bytes` or longer than `max_seconds`, a file ffprobe cannot read, or one with no
 * audio to transcribe. The extension is checked first and the size before ffprobe runs, so an
 * oversized or foreign upload costs nothing to refuse.
 */
import { Type } from "@sinclair/typebox";
import { Defaulted, defineStage, resolveOptions, StageError, type StageWith } from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { ffprobeJson, lastMeaningfulLine, runFfmpeg, SAFE_INPUT_ARGS, ToolError } from "../../daemon/render/ffmpeg.js";
import {
  AUDIO_EXTENSIONS,
  extensionOf,
  kindOfExtension,
  MEDIA_FORMATS,
  VIDEO_EXTENSIONS,
} from "../../daemon/domain/media-types.js";
import { EPISODE_MAX_BYTES, EPISODE_MAX_SECONDS } from "../../daemon/domain/limits.js";
import { describeMedia, type MediaInfo } from "./_describe.js";

/** The `with:` options of probe: the one place their limits, defaults and descriptions are written. */
export const ProbeOptionsSchema = Type.Object(
  {
    max_seconds: Defaulted(
      Type.Number({ exclusiveMinimum: 0, description: "Longest accepted duration, in seconds (3 h)." }),
      EPISODE_MAX_SECONDS,
    ),
    max_bytes: Defaulted(
      Type.Integer({ minimum: 1, description: "Largest accepted file, in bytes (4.5 GB)." }),
      EPISODE_MAX_BYTES,
    ),
  },
  { additionalProperties: false },
);

// ffprobe demuxers that correspond to the accepted extensions. Anything else (an HLS playlist,
// a text file read as "tty", an image sequence) is refused even when ffprobe can open it.
// ffprobe names its demuxers after the containers of the media table (it reports "mov,mp4,m4a,…").
const ACCEPTED_DEMUXERS = new Set(Object.values(MEDIA_FORMATS).flatMap((f) => f.containers));

export default defineStage<StageWith<typeof ProbeOptionsSchema>>({
  name: "probe",
  needs: ["source"],
  provides: ["media"],
  summary: "Reads duration, streams and picture size of the source and enforces the upload limits",
  options: ProbeOptionsSchema,
  async run(input, ctx): Promise<{ media: MediaInfo }> {
    const opts = resolveOptions(ProbeOptionsSchema, ctx.options);
    const source = input.source;
    if (typeof source?.key !== "string")
      throw new StageError("bad_input", "probe needs input.source.key (run fetch-source first)");
    const name: string = typeof source.name === "string" && source.name ? source.name : source.key;

    const ext = extensionOf(name);
    if (!kindOfExtension(ext)) {
      const accepted = [...VIDEO_EXTENSIONS, ...AUDIO_EXTENSIONS].join(" ");
      throw new StageError(
        "unsupported_type",
        `${ext ? `"${ext}" files are` : `"${name}" has no extension, so it is`} not supported; accepted: ${accepted}`,
        { details: { extension: ext, accepted: [...VIDEO_EXTENSIONS, ...AUDIO_EXTENSIONS] } },
      );
    }

    if (!(await ctx.storage.exists(source.key))) {
      throw new StageError("unreadable", `${name} is missing from storage`, { details: { key: source.key } });
    }
    const bytes = await ctx.storage.size(source.key);
    if (bytes === 0) throw new StageError("unreadable", `${name} is empty`);
    if (bytes > opts.max_bytes) {
      throw new StageError("too_big", `${name} is ${bytes} bytes, over the limit of ${opts.max_bytes} bytes`, {
        details: { max_bytes: opts.max_bytes, bytes },
      });
    }

    ctx.progress(10, "probing");
    const file = await stepFile(ctx, source.key);
    let probed;
    try {
      probed = await ffprobeJson(file, { signal: ctx.signal });
    } catch (err) {
      if (err instanceof ToolError) throw unreadable(name, lastMeaningfulLine(err.stderr) || err.message, err);
      throw err; // a missing ffprobe or an abort: not the file's fault
    }
    const demuxers = (probed.format.format_name ?? "").split(",");
    if (!demuxers.some((d) => ACCEPTED_DEMUXERS.has(d))) {
      throw unreadable(
        name,
        `not an audio or video container clipd accepts (ffprobe read it as ${probed.format.format_name || "nothing"})`,
      );
    }

    const media = describeMedia(probed, bytes);
    if (!media.has_audio) {
      throw new StageError("no_audio", `${name} has no audio track, so there is nothing to transcribe`, {
        details: { kind: media.kind },
      });
    }
    // Some recorders (browser MediaRecorder WebM, for one) write no duration: read the audio through.
    if (!(media.duration > 0)) media.duration = await measureDuration(file, ctx.signal);
    if (!(media.duration > 0)) throw unreadable(name, "its duration could not be determined");
    if (media.duration > opts.max_seconds) {
      throw new StageError(
        "too_long",
        `${name} lasts ${formatDuration(media.duration)}, over the limit of ${formatDuration(opts.max_seconds)}`,
        { details: { max_duration_seconds: opts.max_seconds, duration_seconds: media.duration } },
      );
    }
    ctx.progress(100, `${media.kind}, ${formatDuration(media.duration)}`);
    return { media };
  },
});

/** Duration found by copying the first audio track to nowhere and watching ffmpeg's clock. */
async function measureDuration(file: string, signal: AbortSignal): Promise<number> {
  let seconds = 0;
  try {
    await runFfmpeg([...SAFE_INPUT_ARGS, "-i", file, "-map", "0:a:0", "-c", "copy", "-f", "null", "-"], {
      signal,
      onTime: (t) => void (seconds = Math.max(seconds, t)),
    });
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return 0;
  }
  return Math.round(seconds * 1000) / 1000;
}

function unreadable(name: string, reason: string, cause?: unknown): StageError {
  // ffprobe prefixes its reasons with the file's path, which is ours, not the user's.
  const clean = reason.replace(/^.*?:\s(?=[A-Z])/, "").trim();
  return new StageError("unreadable", `${name} could not be read as audio or video: ${clean}`, {
    cause,
    details: { reason: clean },
  });
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h
    ? `${h}h${String(m).padStart(2, "0")}m${String(rest).padStart(2, "0")}s`
    : m
      ? `${m}m${String(rest).padStart(2, "0")}s`
      : `${rest}s`;
}
