/**
 * Any OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI, a local faster-whisper server,
 * …) with verbose_json and word timestamps; a diarizing model (its name holds "diarize") is asked
 * for diarized_json instead, which labels speakers but times only segments (see fromDiarizedJson). Chunks go up as 16
 * kHz mono mp3 (about 6 kB/s), so a
 * chunk of at most 20 minutes stays far below the 25 MB upload limit. Transient failures (network,
 * 408, 409, 429, 5xx) are retried with exponential backoff; other 4xx fail the step at once.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import OpenAI from "openai";
import pRetry, { AbortError } from "p-retry";
import { StageError } from "../../../daemon/engine/stage.js";
import type { TranscriptWord } from "../../../daemon/render/captions.js";
import type { ChunkInput, ChunkResult, Engine, EngineContext } from "./types.js";

const UPLOAD_LIMIT = 25 * 1024 * 1024;

interface VerboseSegment {
  start: number;
  end: number;
  text: string;
  avg_logprob?: number;
}
interface Verbose {
  language?: string;
  text?: string;
  /** `probability` is faster-whisper's per-word score, which servers built on it return. */
  words?: Array<{ word: string; start: number; end: number; probability?: number }>;
  segments?: VerboseSegment[];
  /** Token log-probabilities, from servers that return them (OpenAI's `include: ["logprobs"]`). */
  logprobs?: Array<{ token: string; logprob: number }>;
}

/** Whisper-style tokens joined into words (a token opening on a space starts one): each word's mean probability. */
function tokenWordProbabilities(tokens: Array<{ token: string; logprob: number }>): number[] {
  const out: number[][] = [];
  for (const t of tokens) {
    if (!t.token?.trim() || !Number.isFinite(t.logprob)) continue;
    if (!out.length || /^\s/.test(t.token)) out.push([]);
    out[out.length - 1]!.push(Math.exp(t.logprob));
  }
  return out.map((ps) => ps.reduce((a, b) => a + b, 0) / ps.length);
}

const LANGUAGE_NAMES: Record<string, string> = {
  english: "en",
  german: "de",
  french: "fr",
  spanish: "es",
  italian: "it",
};

/**
 * Maps a verbose_json body to words. A word's confidence is the best the server gives: its own
 * `probability`, else the mean exp(logprob) of its tokens when the body has token log-probabilities
 * that join into as many words, else its segment's exp(avg_logprob), else 1.
 */
export function fromVerboseJson(body: Verbose): ChunkResult {
  const segments = (body.segments ?? []).filter((s) => s.text?.trim());
  const given = (body.words ?? []).filter((w) => w.word?.trim());
  const fromTokens = body.logprobs?.length ? tokenWordProbabilities(body.logprobs) : [];
  const byToken = fromTokens.length === given.length ? fromTokens : undefined;
  const words: TranscriptWord[] = given.map((w, i) => {
    const mid = (w.start + w.end) / 2;
    const seg = segments.find((s) => mid >= s.start && mid <= s.end);
    const p =
      typeof w.probability === "number"
        ? w.probability
        : (byToken?.[i] ?? (seg?.avg_logprob !== undefined ? Math.exp(seg.avg_logprob) : 1));
    const confidence = Math.min(1, Math.max(0, p));
    return { text: w.word.trim(), start: w.start, end: Math.max(w.start, w.end), confidence };
  });
  const lang = body.language?.toLowerCase();
  return {
    words,
    segments: segments.map((s) => ({ start: s.start, end: s.end, text: s.text.trim() })),
    language: lang ? (LANGUAGE_NAMES[lang] ?? lang) : undefined,
  };
}

interface DiarizedSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
}

/** Models that answer diarized_json: speaker-labelled segments, no word times. */
export const isDiarizingModel = (model: string) => /diariz/i.test(model);

/**
 * Maps a diarized_json body to words. The model times segments only, so each segment's words get
 * times spread over it in proportion to their length (captions are then less exact than with word
 * timestamps). Its speaker labels ("A", "B" or names given to the model) become S1, S2… in order
 * of first appearance; the labels are the model's per upload, so two chunks may number the same
 * voice differently (docs/transcription.md).
 */
export function fromDiarizedJson(body: { segments?: DiarizedSegment[]; language?: string }): ChunkResult {
  const labels = new Map<string, string>();
  const words: TranscriptWord[] = [];
  const segments: ChunkResult["segments"] = [];
  for (const s of body.segments ?? []) {
    const text = s.text?.trim();
    if (!text || !(s.end > s.start)) continue;
    const label = s.speaker ?? "";
    if (!labels.has(label)) labels.set(label, `S${labels.size + 1}`);
    const speaker = labels.get(label)!;
    const parts = text.split(/\s+/).slice(0, 10_000);
    const chars = parts.reduce((a, w) => a + w.length + 1, 0);
    let t = s.start;
    for (const w of parts) {
      const len = ((s.end - s.start) * (w.length + 1)) / chars;
      words.push({ text: w, start: t, end: t + len * 0.9, confidence: 1, speaker });
      t += len;
    }
    segments.push({ start: s.start, end: s.end, text });
  }
  return { words, segments, language: body.language?.toLowerCase() };
}

function isTransient(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  if (status === undefined) return true; // network errors, timeouts
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function defineOpenAIEngine(ctx: EngineContext, opts: { model?: string }): Engine {
  const cfg = ctx.config.openai ?? {};
  if (!cfg.api_key) {
    throw new StageError(
      "engine_unavailable",
      "the openai engine needs config openai.api_key (and openai.base_url for other servers)",
    );
  }
  const model: string = opts.model ?? cfg.model ?? "whisper-1";
  const diarize = isDiarizingModel(model);
  const client = new OpenAI({
    apiKey: cfg.api_key,
    baseURL: cfg.base_url ?? undefined,
    maxRetries: 0, // p-retry below owns retries, so backoff and logging live in one place
    timeout: cfg.timeout_ms ?? 600_000,
  });
  return {
    name: "openai",
    model,
    format: "mp3",
    maxChunkSeconds: 1200,
    async transcribe(chunk: ChunkInput): Promise<ChunkResult> {
      const size = (await stat(chunk.file)).size;
      if (size > UPLOAD_LIMIT) {
        throw new StageError("chunk_too_large", `audio chunk is ${size} bytes, over the 25 MB upload limit`);
      }
      const body = await pRetry(
        async () => {
          try {
            return (await client.audio.transcriptions.create(
              {
                file: createReadStream(chunk.file),
                model,
                // Without a language the server detects it (and reports it in verbose_json).
                ...(chunk.language === "auto" ? {} : { language: chunk.language }),
                ...(diarize
                  ? { response_format: "diarized_json", chunking_strategy: "auto" }
                  : { response_format: "verbose_json", timestamp_granularities: ["word", "segment"] }),
              } as Parameters<typeof client.audio.transcriptions.create>[0],
              { signal: chunk.signal },
            )) as unknown as Verbose & { segments?: DiarizedSegment[] };
          } catch (err) {
            if (chunk.signal.aborted || !isTransient(err)) throw new AbortError(err as Error);
            throw err;
          }
        },
        {
          retries: cfg.retries ?? 4,
          minTimeout: cfg.retry_min_ms ?? 1000,
          factor: 2,
          signal: chunk.signal,
          onFailedAttempt: ({ error, attemptNumber, retriesLeft }) =>
            ctx.log.warn({ err: error, attemptNumber, retriesLeft }, "transcription request failed, retrying"),
        },
      ).catch((err: unknown) => {
        const status = (err as { status?: number })?.status;
        if (status !== undefined && !isTransient(err)) {
          throw new StageError(
            "engine_rejected",
            `transcription server refused the request (HTTP ${status}): ${(err as Error).message}`,
            {
              cause: err,
            },
          );
        }
        throw err;
      });
      return diarize ? fromDiarizedJson(body) : fromVerboseJson(body);
    },
    async close() {},
  };
}
