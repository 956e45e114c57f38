/**
 * The engine interface: an engine transcribes one prepared chunk of audio and reports words with
 * times relative to that chunk. Chunking, offsets, segments, captions and storage belong to the
 * stage, so an engine stays small and any engine gets long-audio handling for free.
 */
import type { Logger } from "pino";
import type { AudioFormat } from "../../../daemon/render/audio.js";
import type { TranscriptWord } from "../../../daemon/render/captions.js";

export interface ChunkResult {
  words: TranscriptWord[];
  /** Engine-found sentence or utterance spans, relative to the chunk, when the engine has them. */
  segments?: Array<{ start: number; end: number; text: string }>;
  /** Detected language, when the engine detects one. */
  language?: string;
}

export interface ChunkInput {
  /** Local path of the chunk, mono 16 kHz in the engine's `format`. */
  file: string;
  /** Length of the chunk in seconds. */
  duration: number;
  /** A language code, or "auto" to let the engine detect it. */
  language: string;
  /** CPU threads this chunk may use. */
  threads: number;
  signal: AbortSignal;
  /**
   * Tells the stage how far into the chunk the engine has got (seconds of audio), as it goes, so
   * progress moves within a chunk. Optional for an engine: without it the stage estimates.
   */
  onProgress?: (seconds: number) => void;
}

export interface Engine {
  readonly name: "pocketsphinx" | "whisper" | "openai";
  /** Model name recorded in the output, when the engine has one. */
  readonly model?: string;
  /** The audio format chunks must come in. */
  readonly format: AudioFormat;
  /** Set when the engine's model knows one language only (it cannot tell any other). */
  readonly fixedLanguage?: string;
  /** An upper bound on chunk length, e.g. from an upload limit. */
  readonly maxChunkSeconds?: number;
  transcribe(chunk: ChunkInput): Promise<ChunkResult>;
  /** Releases models or connections; always called, also after a failure. */
  close(): Promise<void>;
}

export interface EngineContext {
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  config: Readonly<Record<string, any>>;
  log: Logger;
  signal: AbortSignal;
}
