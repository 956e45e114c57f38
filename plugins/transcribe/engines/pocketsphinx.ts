/**
 * Offline CMU PocketSphinx through Debian's `pocketsphinx_continuous` (US English model).
 * Weak on accuracy but always available, so it is the fallback of `engine: auto`.
 */
import { existsSync } from "node:fs";
import { POCKETSPHINX_COMMAND, POCKETSPHINX_MODEL, requirementMissing } from "../../../daemon/ops/os-packages.js";
import { StageError } from "../../../daemon/engine/stage.js";
import { _runTool } from "../../../daemon/render/audio.js";
import { lastMeaningfulLine, runTool } from "../../../daemon/render/ffmpeg.js";
import type { TranscriptWord } from "../../../daemon/render/captions.js";
import type { ChunkInput, ChunkResult, Engine, EngineContext } from "./types.js";

const FILLERS = new Set(["<s>", "</s>", "<sil>"]);

/**
 * Parses the word lines of `-time yes` output: `word start end [posterior]`. Hypothesis lines,
 * sentence markers, silences and noise tokens (`[NOISE]`, `++BREATH++`) are skipped, and
 * pronunciation variants lose their `(2)` suffix.
 */
export function parsePocketsphinx(stdout: string): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  for (const raw of stdout.split("\n")) {
    const m = /^(\S+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)(?:\s+(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?))?\s*$/i.exec(raw.trim());
    if (!m) continue;
    const token = m[1]!;
    if (FILLERS.has(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token)) continue;
    const text = token.replace(/\(\d+\)$/, "");
    if (!text) continue;
    const start = Number(m[2]);
    const end = Number(m[3]);
    const p = m[4] === undefined ? 1 : Number(m[4]);
    words.push({ text, start, end: Math.max(start, end), confidence: Math.min(1, Math.max(0, p)) });
  }
  return words;
}

/**
 * Runs the decoder while following its output: it prints each utterance's words (and silences) as
 * it finishes them, flushed, so their end times track how far into the chunk it has got.
 */
async function runFollowing(
  command: string,
  args: string[],
  signal: AbortSignal,
  onProgress: (seconds: number) => void,
) {
  const r = await runTool(command, args, {
    signal,
    killGraceMs: 0,
    onStdoutLine: (line) => {
      const m = /^\S+\s+\d+(?:\.\d+)?\s+(\d+(?:\.\d+)?)(?:\s|$)/.exec(line.trim());
      if (m) onProgress(Number(m[1]));
    },
  });
  if (r.code !== 0) throw new Error(`${command} exited with ${r.code ?? "a signal"}: ${lastMeaningfulLine(r.stderr)}`);
  return r;
}

export function definePocketsphinxEngine(ctx: EngineContext): Engine {
  const command: string = ctx.config.pocketsphinx?.command ?? POCKETSPHINX_COMMAND;
  return {
    name: "pocketsphinx",
    model: "en-us",
    format: "wav",
    fixedLanguage: "en",
    async transcribe(chunk: ChunkInput): Promise<ChunkResult> {
      if (chunk.language !== "auto" && !/^en\b/i.test(chunk.language)) {
        throw new StageError(
          "unsupported_language",
          `pocketsphinx only has a US English model, not "${chunk.language}"`,
        );
      }
      // Without its model the program only says it cannot open a file; name the package instead.
      if (command === POCKETSPHINX_COMMAND && !existsSync(POCKETSPHINX_MODEL))
        throw requirementMissing("pocketsphinx en-us model");
      const args = ["-infile", chunk.file, "-time", "yes", "-logfn", "/dev/null"];
      const { stdout } = chunk.onProgress
        ? await runFollowing(command, args, chunk.signal, chunk.onProgress)
        : await _runTool(command, args, { signal: chunk.signal });
      return { words: parsePocketsphinx(stdout), language: "en" };
    },
    async close() {},
  };
}
