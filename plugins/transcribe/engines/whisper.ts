/**
 * Local whisper.cpp through the `smart-whisper` binding (builds its bundled whisper.cpp with
 * node-gyp at install). The binding is an optional dependency: it is imported lazily, so clipd
 * runs without it and only this engine reports how to install it.
 */
import path from "node:path";
import { readFile, stat } from "node:fs/promises";
import { StageError } from "../../../daemon/engine/stage.js";
import type { TranscriptWord } from "../../../daemon/render/captions.js";
import { resolveModelPath } from "./models.js";
import type { ChunkInput, ChunkResult, Engine, EngineContext } from "./types.js";

interface WhisperToken {
  text: string;
  id: number;
  p: number;
  from?: number;
  to?: number;
}
interface WhisperSegment {
  from: number;
  to: number;
  text: string;
  lang?: string;
  tokens?: WhisperToken[];
}
interface WhisperBinding {
  Whisper: new (
    file: string,
    config?: { gpu?: boolean; offload?: number },
  ) => {
    transcribe(
      pcm: Float32Array,
      params: Record<string, unknown>,
    ): Promise<{
      result: Promise<WhisperSegment[]>;
      on?(event: "transcribed", fn: (seg: WhisperSegment) => void): unknown;
    }>;
    free(): Promise<void>;
  };
}

export const WHISPER_INSTALL_HINT = "npm install smart-whisper (needs python3, make and a C++ compiler)";

async function loadBinding(): Promise<WhisperBinding> {
  const name = "smart-whisper";
  try {
    return (await import(name)) as WhisperBinding;
  } catch (err) {
    throw new StageError(
      "engine_unavailable",
      `the whisper engine needs the smart-whisper binding: ${WHISPER_INSTALL_HINT}`,
      {
        cause: err,
      },
    );
  }
}

/** Reads 16-bit PCM samples from a WAV file (any chunk layout) as floats in [-1, 1). */
export function wavToFloat32(buf: Buffer): Float32Array {
  if (buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("not a RIFF/WAVE file");
  }
  let off = 12;
  while (off + 8 <= buf.length) {
    const id = buf.toString("ascii", off, off + 4);
    let size = buf.readUInt32LE(off + 4);
    if (id === "data") {
      size = Math.min(size, buf.length - off - 8);
      const n = Math.floor(size / 2);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(off + 8 + i * 2) / 32768;
      return out;
    }
    off += 8 + size + (size % 2);
  }
  throw new Error("WAV file has no data chunk");
}

const SPECIAL = /^\s*(\[_[A-Z_0-9]*\]|<\|.*\|>)\s*$/;

/** Joins whisper's sub-word tokens into words: a token starting with a space starts a new word. */
export function tokensToWords(segments: WhisperSegment[]): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  for (const seg of segments) {
    let cur: { text: string; start: number; end: number; ps: number[] } | null = null;
    const flush = () => {
      if (cur && cur.text.trim()) {
        const confidence = cur.ps.reduce((a, b) => a + b, 0) / cur.ps.length;
        words.push({ text: cur.text.trim(), start: cur.start, end: Math.max(cur.start, cur.end), confidence });
      }
      cur = null;
    };
    for (const t of seg.tokens ?? []) {
      if (!t.text || SPECIAL.test(t.text)) continue;
      const from = (t.from ?? seg.from) / 1000;
      const to = (t.to ?? seg.to) / 1000;
      if (!cur || /^\s/.test(t.text)) {
        flush();
        cur = { text: t.text, start: from, end: to, ps: [t.p] };
      } else {
        cur.text += t.text;
        cur.end = to;
        cur.ps.push(t.p);
      }
    }
    flush();
  }
  return words;
}

export async function defineWhisperEngine(ctx: EngineContext, opts: { model?: string }): Promise<Engine> {
  const modelPath = await resolveModelPath(opts.model ?? ctx.config.whisper?.model ?? "base.en", ctx.config.data_dir);
  // The binding crashes the whole process on a missing or unreadable file, so check first.
  try {
    const st = await stat(modelPath);
    if (!st.isFile() || st.size === 0) throw new Error("not a file");
  } catch (err) {
    throw new StageError(
      "model_missing",
      `whisper model file ${modelPath} is missing or empty; run \`clipd models pull <name>\``,
      {
        cause: err,
      },
    );
  }
  const binding = await loadBinding();
  const whisper = new binding.Whisper(modelPath, { gpu: false, offload: 3600 });
  return {
    name: "whisper",
    model: opts.model ?? ctx.config.whisper?.model ?? "base.en",
    format: "wav",
    // English-only models (*.en) transcribe everything as English; whisper.cpp does not detect with them.
    ...(/\.en(\.bin)?$/i.test(path.basename(modelPath)) ? { fixedLanguage: "en" } : {}),
    async transcribe(chunk: ChunkInput): Promise<ChunkResult> {
      const pcm = wavToFloat32(await readFile(chunk.file));
      if (chunk.signal.aborted) throw chunk.signal.reason;
      const task = await whisper.transcribe(pcm, {
        language: chunk.language,
        format: "detail",
        token_timestamps: true,
        n_threads: Math.max(1, chunk.threads),
        suppress_non_speech_tokens: true,
      });
      // Each segment is announced as it is decoded; its end tells how far into the chunk it is.
      if (chunk.onProgress) task.on?.("transcribed", (seg: WhisperSegment) => chunk.onProgress!(seg.to / 1000));
      // whisper.cpp can't be interrupted mid-chunk; on abort we stop waiting and let it finish.
      const segments = await new Promise<WhisperSegment[]>((resolve, reject) => {
        const onAbort = () => reject(chunk.signal.reason ?? new Error("aborted"));
        chunk.signal.addEventListener("abort", onAbort, { once: true });
        task.result.then(resolve, reject).finally(() => chunk.signal.removeEventListener("abort", onAbort));
      });
      return {
        words: tokensToWords(segments),
        segments: segments
          .filter((s) => s.text.trim())
          .map((s) => ({ start: s.from / 1000, end: s.to / 1000, text: s.text.trim() })),
        language: segments.find((s) => s.lang)?.lang,
      };
    },
    close: () => whisper.free(),
  };
}
