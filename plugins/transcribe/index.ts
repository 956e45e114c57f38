/**
 * transcribe: speech to words with times, plus txt/srt/vtt captions.
 * The audio is decoded once to 16 kHz mono (silences found in the same pass, _decode.ts), cut at
 * silences into at least as many chunks as run at once (_chunks.ts), transcribed up to
 * `concurrency` chunks at once with progress inside each chunk (_progress.ts), and stitched back
 * with each chunk's offset, so word times are exact on the whole file. Outputs go to runs/<runId>/transcript.*,
 * overwritten on a retry, so the stage is safe to repeat.
 */
import os from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import {
  Defaulted,
  defineStage,
  resolveOptions,
  StageError,
  StringEnum,
  type StageContext,
  type StageWith,
} from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { _mapLimit, hasAudioStream, probeDuration, speechSeconds, toMono16k } from "../../daemon/render/audio.js";
import { toSrt, toTxt, toVtt, type Transcript, type TranscriptWord } from "../../daemon/render/captions.js";
import { channelLevels, speakersByChannel } from "./_speakers.js";
import { stitchWords, toSegments, type PlacedChunk } from "./_stitch.js";
import { detectLanguage } from "./_language.js";
import { pickEngine, type EngineChoice } from "./_pick.js";
import { planTranscribeChunks } from "./_chunks.js";
import { decodeAndFindSilences, decodedSeconds } from "./_decode.js";
import { chunkProgress } from "./_progress.js";

/** The `with:` options of transcribe: the one place their limits, defaults and descriptions are written. */
export const TranscribeOptionsSchema = Type.Object(
  {
    engine: Defaulted(
      StringEnum(["auto", "pocketsphinx", "whisper", "openai"] satisfies EngineChoice[], {
        description:
          "Which recogniser; `auto` takes config `transcribe.engine`, else whisper, then openai, then pocketsphinx.",
      }),
      "auto",
    ),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        "x-default": "per engine",
        description: "whisper: a model name (`base.en`) or a path to a ggml file; openai: the API model.",
      }),
    ),
    language: Defaulted(
      Type.String({
        pattern: "^(auto|[a-z]{2,3}(-[A-Za-z]{2,4})?)$",
        description:
          "Language code, or `auto` to detect it: the engine's report (whisper multilingual " +
          "models, openai), else the text identified (franc-min); pocketsphinx and " +
          "`*.en` whisper models report `en`. The output then carries `language_source` " +
          "(`engine`, `text`, `model`).",
      }),
      "en",
    ),
    chunk_seconds: Defaulted(
      Type.Number({
        minimum: 20,
        maximum: 3600,
        description: "Longest chunk; cuts are placed in silences near even shares of the audio.",
      }),
      300,
    ),
    min_chunk_seconds: Defaulted(
      Type.Number({
        minimum: 5,
        maximum: 600,
        description: "Shortest chunk made to give every core work; a shorter recording stays one chunk.",
      }),
      15,
    ),
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        "x-default": "CPU cores",
        description: "Chunks transcribed at once; the audio is split into at least this many chunks.",
      }),
    ),
    vad: Defaulted(
      Type.Boolean({
        description: "Skip chunks that silencedetect finds (almost) silent: under 0.3 s of non-silence.",
      }),
      false,
    ),
  },
  { additionalProperties: false },
);
export type TranscribeOptions = StageWith<typeof TranscribeOptionsSchema>;

/** How far a container's stated length may be from the decoded audio's before the decoded one wins. */
export const HEADER_SLACK_SECONDS = 2;

export default defineStage<TranscribeOptions>({
  name: "transcribe",
  needs: ["source"],
  // media: only when the source's header lied about its length, with the decoded length in it.
  provides: ["transcript", "media"],
  summary: "Transcribes the source audio into timed words, segments and txt/srt/vtt captions",
  options: TranscribeOptionsSchema,
  async run(input, ctx) {
    const opts = resolveOptions(TranscribeOptionsSchema, ctx.options);
    const language = opts.language;
    const cores = os.availableParallelism();
    const concurrency = opts.concurrency ?? cores;
    const source = input.source as { key?: string } | undefined;
    if (!source?.key) throw new StageError("bad_input", "transcribe needs input.source.key");
    // A message reaches clients (episodes, transcripts, webhooks): it never names a storage key,
    // which is the server's business; the log keeps the key beside the run id.
    if (!(await ctx.storage.exists(source.key))) {
      ctx.log.warn({ key: source.key }, "source missing from storage");
      throw new StageError("source_missing", "the source file is no longer in storage");
    }
    const sourcePath = await stepFile(ctx, source.key);

    const media = input.media as { duration?: number; has_audio?: boolean } | undefined;
    const hasAudio = media?.has_audio ?? (await hasAudioStream(sourcePath, ctx.signal));
    if (!hasAudio) throw new StageError("no_audio", "the source has no audio stream");

    const engine = await pickEngine(opts, ctx);
    ctx.log.info({ engine: engine.name, model: engine.model }, "transcribe engine chosen");
    try {
      ctx.progress(1, "decoding audio and finding silences");
      const full = path.join(ctx.workdir, "audio16k.wav");
      const known = media?.duration ?? (await probeDuration(sourcePath, ctx.signal).catch(() => undefined));
      let silences = await decodeAndFindSilences(sourcePath, full, {
        duration: known,
        signal: ctx.signal,
        onFraction: (f) => ctx.progress(1 + 7 * f, `decoding audio and finding silences: ${Math.round(f * 100)}%`),
      });
      // The decoded length wins over the container's claim when they differ (issue 27): chunks are
      // planned on it, and the run's media and the transcript carry it, so the charge follows it.
      const decoded = await decodedSeconds(full);
      const header = media?.duration;
      const lied = header !== undefined && Math.abs(header - decoded) > HEADER_SLACK_SECONDS;
      const duration = header !== undefined && !lied ? header : decoded || (await probeDuration(full, ctx.signal));
      if (lied) {
        ctx.log.warn({ header, decoded }, "the source's header claims another length; the decoded length is used");
        silences = silences
          .filter((sp) => sp.start < duration)
          .map((sp) => ({ start: sp.start, end: Math.min(sp.end, duration) }));
      }
      const target = Math.min(opts.chunk_seconds, engine.maxChunkSeconds ?? Infinity);
      let chunks = planTranscribeChunks(duration, silences, {
        target,
        concurrency,
        min_seconds: opts.min_chunk_seconds,
      });
      if (opts.vad) chunks = chunks.filter((c) => speechSeconds(c, silences) >= 0.3);
      ctx.log.info({ duration, chunks: chunks.length, concurrency, silences: silences.length }, "audio chunked");

      // The cores are shared among the chunks in flight; a lone chunk gets them all.
      const threads = Math.max(1, Math.floor(cores / Math.min(concurrency, Math.max(1, chunks.length))));
      const track = chunkProgress(chunks, (pct, note, eta) => ctx.progress(pct, note, eta), { from: 8, to: 95 });
      const ticker = setInterval(() => track.tick(), 1000);
      let placed: PlacedChunk[];
      try {
        placed = await _mapLimit(chunks, concurrency, async (c, i): Promise<PlacedChunk> => {
          const file = path.join(ctx.workdir, `chunk-${String(i).padStart(4, "0")}.${engine.format}`);
          await toMono16k(full, file, {
            start: c.start,
            duration: c.end - c.start,
            format: engine.format,
            signal: ctx.signal,
          });
          track.started(i);
          const result = await engine.transcribe({
            file,
            duration: c.end - c.start,
            language,
            threads,
            signal: ctx.signal,
            onProgress: (seconds) => track.reached(i, seconds),
          });
          track.done(i);
          return { start: c.start, end: c.end, result };
        });
      } finally {
        clearInterval(ticker);
      }
      const rtf = track.realTimeFactor();
      ctx.log.info(
        { chunks: chunks.length, concurrency, threads, realtime_factor: rtf && Math.round(rtf * 1000) / 1000 },
        "chunks transcribed",
      );

      const { words, hint } = stitchWords(placed, duration);
      if (words.length === 0) {
        throw new StageError("no_speech", `no speech was recognised in the recording (engine ${engine.name})`, {
          retryable: false,
        });
      }
      ctx.progress(96, "telling speakers apart");
      await labelSpeakers(sourcePath, words, ctx);
      const detected =
        language === "auto"
          ? await detectLanguage({
              reports: placed.map((p) => p.result.language),
              text: words.map((w) => w.text).join(" "),
              fixedModelLanguage: engine.fixedLanguage,
            })
          : undefined;
      const transcript: Transcript = {
        engine: engine.name,
        ...(engine.model ? { model: engine.model } : {}),
        language: detected?.language ?? language,
        ...(detected ? { language_source: detected.source } : {}),
        duration,
        words,
        segments: toSegments(words, hint),
      };
      const saved = { ...(await save(transcript, ctx)), chunks: chunks.length };
      if (!lied) return { transcript: saved };
      const corrected = { ...media, duration, duration_header: header };
      return { transcript: saved, media: corrected };
    } finally {
      await engine.close();
    }
  },
});

/** Stereo sources with one voice per channel get S1/S2 on their words; anything else stays S1. */
async function labelSpeakers(sourcePath: string, words: TranscriptWord[], ctx: StageContext<TranscribeOptions>) {
  try {
    const levels = await channelLevels(sourcePath, { workdir: ctx.workdir, signal: ctx.signal });
    const speakers = levels && speakersByChannel(words, levels);
    if (speakers) words.forEach((w, i) => (w.speaker = speakers[i]));
    ctx.log.info({ speakers: speakers ? new Set(speakers).size : 1, channels: levels ? 2 : "not two" }, "speakers");
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log.warn({ err }, "transcribe: channels could not be compared, one speaker");
  }
}

async function save(t: Transcript, ctx: StageContext<TranscribeOptions>) {
  const base = `runs/${ctx.runId}/transcript`;
  const files = {
    txt: await ctx.storage.write(`${base}.txt`, toTxt(t)),
    srt: await ctx.storage.write(`${base}.srt`, toSrt(t.words)),
    vtt: await ctx.storage.write(`${base}.vtt`, toVtt(t.words)),
  };
  const key = await ctx.storage.write(`${base}.json`, JSON.stringify(t));
  ctx.progress(100, "done");
  const text = t.segments.map((s) => s.text).join(" ");
  return {
    key,
    engine: t.engine,
    ...(t.model ? { model: t.model } : {}),
    language: t.language,
    ...(t.language_source ? { language_source: t.language_source } : {}),
    duration: t.duration,
    word_count: t.words.length,
    files,
    preview: text.length > 200 ? text.slice(0, 200).replace(/\s+\S*$/, "") + "…" : text,
  };
}
