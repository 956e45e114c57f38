/**
 * Any OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI, a local faster-whisper server,
 * …) with verbose_json and word timestamps. Chunks go up as 16 kHz mono mp3 (about 6 kB/s), so a
 * chunk of at most 20 minutes stays far below the 25 MB upload limit. Transient failures (network,
 * 408, 409, 429, 5xx) are retried with exponential backoff; other 4xx fail the step at once.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import OpenAI from "openai";
import pRetry, { AbortError } from "p-retry";
import { StageError } from "../../../daemon/engine/stage.js";
import type { TranscriptWord } from "../../../daemon/kit/captions.js";
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
  words?: Array<{ word: string; start: number; end: number }>;
  segments?: VerboseSegment[];
}

const LANGUAGE_NAMES: Record<string, string> = { english: "en", german: "de", french: "fr", spanish: "es", italian: "it" };

/** Maps a verbose_json body to words; a word's confidence is its segment's exp(avg_logprob), else 1. */
export function fromVerboseJson(body: Verbose): ChunkResult {
  const segments = (body.segments ?? []).filter((s) => s.text?.trim());
  const words: TranscriptWord[] = (body.words ?? [])
    .filter((w) => w.word?.trim())
    .map((w) => {
      const mid = (w.start + w.end) / 2;
      const seg = segments.find((s) => mid >= s.start && mid <= s.end);
      const confidence = seg?.avg_logprob !== undefined ? Math.min(1, Math.exp(seg.avg_logprob)) : 1;
      return { text: w.word.trim(), start: w.start, end: Math.max(w.start, w.end), confidence };
    });
  const lang = body.language?.toLowerCase();
  return {
    words,
    segments: segments.map((s) => ({ start: s.start, end: s.end, text: s.text.trim() })),
    language: lang ? (LANGUAGE_NAMES[lang] ?? lang) : undefined,
  };
}

function isTransient(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  if (status === undefined) return true; // network errors, timeouts
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function defineOpenAIEngine(ctx: EngineContext, opts: { model?: string }): Engine {
  const cfg = ctx.config.openai ?? {};
  if (!cfg.api_key) {
    throw new StageError("engine_unavailable", "the openai engine needs config openai.api_key (and openai.base_url for other servers)");
  }
  const model: string = opts.model ?? cfg.model ?? "whisper-1";
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
                response_format: "verbose_json",
                timestamp_granularities: ["word", "segment"],
              },
              { signal: chunk.signal },
            )) as unknown as Verbose;
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
          throw new StageError("engine_rejected", `transcription server refused the request (HTTP ${status}): ${(err as Error).message}`, {
            cause: err,
          });
        }
        throw err;
      });
      return fromVerboseJson(body);
    },
    async close() {},
  };
}
