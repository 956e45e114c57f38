/**
 * How a brief's answers meet the clips already on the list: an answer may be a listed clip, which
 * keeps its number and ref and is marked with the brief and its rank (`answers`).
 */
import type { Clip } from "./clip.js";

export type { Answer } from "./clip.js";

/** The clip marked as an answer to a brief, keeping every earlier answer of other briefs. */
export const withAnswer = <C extends Pick<Clip, "answers">>(c: C, about: string, rank: number): C => ({
  ...c,
  answers: [...(c.answers ?? []).filter((a) => a.about !== about), { about, rank }],
});

/** The clips answering a brief, best first (an answer found before, or a clip found by that brief). */
export function answersTo<C extends Pick<Clip, "answers" | "about">>(clips: C[], about: string): C[] {
  const rank = (c: C) => c.answers?.find((a) => a.about === about)?.rank ?? (c.about === about ? 1000 : -1);
  return clips.filter((c) => rank(c) >= 0).sort((a, b) => rank(a) - rank(b));
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/**
 * Picks a brief's answers in rank order. A candidate that lies mostly inside a clip already on the
 * list (or holds most of it) is answered by that clip, which keeps its number and ref; one that
 * only grazes a listed clip or an earlier answer is skipped. `count` limits the new clips only.
 */
export function pickAnswers<T extends { w: { start: number; end: number } }>(
  ranked: T[],
  existing: Clip[],
  count: number,
): Array<{ pick: T; existing?: Clip }> {
  const out: Array<{ pick: T; existing?: Clip }> = [];
  const usable = existing.filter((c) => Number.isFinite(c?.start) && Number.isFinite(c?.end));
  let fresh = 0;
  for (const c of ranked) {
    if (fresh >= count) break;
    const len = Math.max(0.001, c.w.end - c.w.start);
    const same = usable.find((e) => overlap(e, c.w) >= 0.5 * Math.min(len, e.end - e.start));
    if (same) {
      if (!out.some((o) => o.existing === same)) out.push({ pick: c, existing: same });
      continue;
    }
    if ([...usable, ...out.map((o) => o.existing ?? o.pick.w)].some((b) => overlap(b, c.w) > 0)) continue;
    out.push({ pick: c });
    fresh++;
  }
  return out;
}
