/**
 * The sound of a clip's pieces as levels a tenth of a second apart, on the joined timeline: the
 * voice activity the speaker decision leans on (speaker.ts), and the two channels apart, for a
 * recording with one voice a channel. One small decode (8 kHz, 16-bit) of each piece.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ffmpegCommand } from "../../daemon/ops/os-packages.js";
import { SAFE_INPUT } from "../../daemon/render/render.js";
import type { Piece } from "./clip.js";

const execFileAsync = promisify(execFile);
const RATE = 8000;
export const STEP = 0.1;

export interface Voice {
  /** dBFS of each step, both channels together, and each apart. */
  level: number[];
  left: number[];
  right: number[];
  /** Level above which a step counts as voice. */
  threshold: number;
  /** True when most voiced steps are much louder on one side: one voice a channel. */
  split: boolean;
}

const db = (sumSq: number, n: number) => (n ? 10 * Math.log10(sumSq / n / 32768 ** 2 + 1e-10) : -100);

/** Levels of stereo 16-bit samples, STEP seconds at a time. */
export function levels(pcm: Buffer): Pick<Voice, "level" | "left" | "right"> {
  const per = Math.round(RATE * STEP);
  const frames = Math.floor(pcm.length / 4);
  const out = { level: [] as number[], left: [] as number[], right: [] as number[] };
  for (let i = 0; i < frames; i += per) {
    let l = 0;
    let r = 0;
    const n = Math.min(per, frames - i);
    for (let j = i; j < i + n; j++) {
      l += pcm.readInt16LE(j * 4) ** 2;
      r += pcm.readInt16LE(j * 4 + 2) ** 2;
    }
    out.left.push(db(l, n));
    out.right.push(db(r, n));
    out.level.push(db(l + r, 2 * n));
  }
  return out;
}

/** Voice activity and channel balance from levels: the threshold sits well under the loud steps. */
export function voiceOf(l: Pick<Voice, "level" | "left" | "right">): Voice {
  const sorted = [...l.level].sort((a, b) => a - b);
  const loud = sorted[Math.floor(sorted.length * 0.9)] ?? -100;
  const threshold = Math.max(-50, loud - 25);
  const voiced = l.level.map((v, i) => i).filter((i) => l.level[i]! > threshold);
  const apart = voiced.filter((i) => Math.abs(l.left[i]! - l.right[i]!) > 9).length;
  return { ...l, threshold, split: voiced.length > 10 && apart / voiced.length >= 0.6 };
}

/** The clip's voice on its joined timeline; undefined for a silent or unreadable sound. */
export async function clipVoice(source: string, pieces: Piece[], signal?: AbortSignal): Promise<Voice | undefined> {
  const all = { level: [] as number[], left: [] as number[], right: [] as number[] };
  for (const p of pieces) {
    const args = [
      ...["-hide_banner", "-nostdin", "-v", "error", ...SAFE_INPUT],
      ...["-ss", p.start.toFixed(3), "-t", (p.end - p.start).toFixed(3), "-i", source],
      ...["-vn", "-ac", "2", "-ar", String(RATE), "-f", "s16le", "-"],
    ];
    try {
      const { stdout } = await execFileAsync(ffmpegCommand(), args, { encoding: "buffer", signal, maxBuffer: 1 << 28 });
      const l = levels(stdout);
      const want = Math.round((p.end - p.start) / STEP);
      for (const k of ["level", "left", "right"] as const) {
        const v = l[k].slice(0, want);
        while (v.length < want) v.push(-100);
        all[k].push(...v);
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
  }
  return all.level.length ? voiceOf(all) : undefined;
}

const around = (v: Voice, t: number) => {
  const i = Math.round(t / STEP);
  return [i - 2, i - 1, i, i + 1, i + 2].filter((j) => j >= 0 && j < v.level.length);
};

/** Whether a voice is heard within a fifth of a second of `t`. */
export const voiceActive = (v: Voice, t: number): boolean => around(v, t).some((i) => v.level[i]! > v.threshold);

/** In a one-voice-a-channel recording, the side that is talking at `t` (undefined: neither or both). */
export function dominantChannel(v: Voice, t: number): "left" | "right" | undefined {
  if (!v.split) return undefined;
  const ids = around(v, t).filter((i) => v.level[i]! > v.threshold);
  if (!ids.length) return undefined;
  const d = ids.reduce((a, i) => a + v.left[i]! - v.right[i]!, 0) / ids.length;
  return d > 6 ? "left" : d < -6 ? "right" : undefined;
}
