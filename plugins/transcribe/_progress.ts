/**
 * The transcribe step's progress over its chunks. Every chunk counts by its length, and a chunk's
 * own progress comes from the engine (the audio time it has reached) as it goes, so the bar moves
 * with the work instead of jumping when a whole chunk ends. For an engine that reports nothing
 * until a chunk is done, a chunk in flight is estimated from the real-time factor of the chunks
 * already done (held below 90% of the chunk until it really ends).
 *
 * The time left is the audio not yet transcribed over the rate measured so far (audio seconds per
 * wall second, all chunks in flight together), so it includes the parallelism actually reached.
 * Reports never go backwards.
 */
import type { Span } from "../../daemon/render/audio.js";

export type Report = (pct: number, note: string, etaSeconds?: number) => void;

export interface ChunkProgress {
  /** The engine reached `seconds` of chunk `i` (relative to the chunk). */
  reached(i: number, seconds: number): void;
  started(i: number): void;
  done(i: number): void;
  /** Re-estimates chunks without engine reports; call about once a second. */
  tick(): void;
  /** Wall seconds per audio second over the whole run of chunks so far (undefined before any). */
  realTimeFactor(): number | undefined;
}

export function chunkProgress(
  chunks: Span[],
  report: Report,
  range: { from: number; to: number },
  now: () => number = Date.now,
): ChunkProgress {
  const len = chunks.map((c) => Math.max(0, c.end - c.start));
  const total = len.reduce((a, b) => a + b, 0) || 1;
  const reachedS = len.map(() => 0);
  const heard = len.map(() => false);
  const startedAt: Array<number | undefined> = len.map(() => undefined);
  const doneIn: Array<number | undefined> = len.map(() => undefined);
  const t0 = now();
  let lastPct = -1;

  const processed = () => reachedS.reduce((a, b) => a + b, 0);
  const emit = () => {
    const p = processed();
    const pct = Math.max(lastPct, range.from + ((range.to - range.from) * p) / total);
    lastPct = pct;
    const elapsed = (now() - t0) / 1000;
    const rate = elapsed > 0.5 && p > 0 ? p / elapsed : undefined;
    const eta = rate ? Math.max(0, (total - p) / rate) : undefined;
    const finished = doneIn.filter((d) => d !== undefined).length;
    report(
      Math.round(pct * 10) / 10,
      `transcribing: ${Math.round(p)} of ${Math.round(total)} s, ${finished} of ${chunks.length} chunks done`,
      eta,
    );
  };
  const set = (i: number, s: number) => {
    const v = Math.min(len[i]!, Math.max(reachedS[i]!, s));
    if (v === reachedS[i]) return false;
    reachedS[i] = v;
    return true;
  };
  /** Wall seconds per audio second of one chunk, from the chunks already done. */
  const perChunkFactor = () => {
    let wall = 0;
    let audio = 0;
    doneIn.forEach((d, i) => {
      if (d === undefined) return;
      wall += d;
      audio += len[i]!;
    });
    return audio > 0 ? wall / audio : undefined;
  };

  return {
    started(i) {
      startedAt[i] = now();
      emit();
    },
    reached(i, seconds) {
      heard[i] = true;
      if (set(i, seconds)) emit();
    },
    done(i) {
      doneIn[i] = startedAt[i] === undefined ? 0 : (now() - startedAt[i]!) / 1000;
      set(i, len[i]!);
      emit();
    },
    tick() {
      const f = perChunkFactor();
      let moved = false;
      if (f && f > 0) {
        for (let i = 0; i < len.length; i++) {
          if (heard[i] || doneIn[i] !== undefined || startedAt[i] === undefined) continue;
          moved = set(i, Math.min(0.9 * len[i]!, (now() - startedAt[i]!) / 1000 / f)) || moved;
        }
      }
      // Re-emitting also refreshes the time left while the audio position holds still.
      if (moved || startedAt.some((s, i) => s !== undefined && doneIn[i] === undefined)) emit();
    },
    realTimeFactor() {
      const p = processed();
      return p > 0 ? (now() - t0) / 1000 / p : undefined;
    },
  };
}
