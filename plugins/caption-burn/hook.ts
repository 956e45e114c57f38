/**
 * Whether the hook title box is drawn. Asked for with `hook_title: true`, the box shows the clip's
 * title, made by the clip finder from the words the engine heard; when some of those words were
 * heard below the confidence bar, the title may say what nobody said, so the box stays off and the
 * render says why. Words the operator typed (`hook_title: "…"`) are always drawn.
 */
import { describeUnsure, MIN_CONFIDENCE, unsureWords, type Heard } from "../../daemon/render/confidence.js";

export interface HookDecision {
  /** The words in the box, or undefined for no box. */
  text?: string;
  /** Why a box asked for is not drawn. */
  off?: string;
}

export function decideHookTitle(
  option: boolean | string,
  title: string | undefined,
  words: Heard[],
  min = MIN_CONFIDENCE,
): HookDecision {
  if (typeof option === "string") return { text: option };
  if (option !== true || !title?.trim()) return {};
  const unsure = unsureWords(title, words, min);
  if (!unsure.length) return { text: title };
  return {
    off:
      `hook title box off: the title's words were heard with low confidence (${describeUnsure(unsure)}, ` +
      `below ${min}); give hook_title your own words to draw it`,
  };
}
