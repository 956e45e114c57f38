/**
 * How the workspace orders and narrows the clip list: by score (best first), by place in the
 * episode, or by length; and by the brief a clip was found for ("Find more about…"), or the
 * first search's. Plain functions, tested in test/unit/clip-order.test.ts.
 */
import type { Clip } from "../types";
import { ranked } from "./timeline";

export type ClipSort = "score" | "time" | "short" | "long";

export const SORTS: Array<{ value: ClipSort; label: string; list: string }> = [
  { value: "score", label: "Best first", list: "best first" },
  { value: "time", label: "In episode order", list: "in episode order" },
  { value: "short", label: "Shortest first", list: "shortest first" },
  { value: "long", label: "Longest first", list: "longest first" },
];

/** "" is every clip, FIRST_SEARCH the clips of the episode's own search, else a brief's words. */
export const FIRST_SEARCH = "\u0000first";

const span = (c: Clip) => c.end_seconds - c.start_seconds;

export function orderClips(clips: Clip[], sort: ClipSort, brief = ""): Clip[] {
  const kept = brief === "" ? clips : clips.filter((c) => (brief === FIRST_SEARCH ? !c.about : c.about === brief));
  const best = ranked(kept);
  if (sort === "score") return best;
  const by =
    sort === "time"
      ? (a: Clip, b: Clip) => a.start_seconds - b.start_seconds
      : sort === "short"
        ? (a: Clip, b: Clip) => span(a) - span(b)
        : (a: Clip, b: Clip) => span(b) - span(a);
  return [...best].sort(by);
}

/** The briefs clips were found for, in the order they first appear, without repeats. */
export function briefsOf(clips: Clip[]): string[] {
  return [...new Set(clips.map((c) => c.about).filter((a): a is string => !!a))];
}

/** Each clip's rank by score (1 = best), whatever order the list is shown in. */
export function ranksOf(clips: Clip[]): Map<string, number> {
  return new Map(ranked(clips).map((c, i) => [c.clip_id, i + 1]));
}
