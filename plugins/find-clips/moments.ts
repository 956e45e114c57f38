/**
 * The episode's moments as the scorer forms them: the best window by quality, then the best one that
 * does not overlap it, and so on until no window fits. This is the list the finder itself would make
 * with no limit on its length, so its passages have the scorer's own boundaries (a story from its
 * set-up to its payoff, not cut mid-way), and together they tile most of the recording.
 *
 * A brief is matched against these moments rather than against every window: a window that holds
 * only the brief's set-up question, or half of a story and half of the next, shares words with the
 * brief as well as the whole moment does, and a search should answer with the moment.
 */
interface Spanned {
  w: { start: number; end: number };
  s: { quality: number };
}

/** The non-overlapping windows picked greedily by quality (ties: the earlier one), in that order. */
export function momentsOf<T extends Spanned>(scored: T[]): T[] {
  const byQuality = [...scored].sort((a, b) => b.s.quality - a.s.quality || a.w.start - b.w.start);
  const taken: Array<{ start: number; end: number }> = [];
  const out: T[] = [];
  for (const x of byQuality) {
    if (taken.some((t) => Math.min(t.end, x.w.end) - Math.max(t.start, x.w.start) > 0)) continue;
    taken.push(x.w);
    out.push(x);
  }
  return out;
}
