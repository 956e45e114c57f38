/**
 * A hook title box that was asked for and not drawn (issue 39): `hook_title: true` is left off
 * when the title's words were heard with low confidence (daemon/render/confidence.ts), which the
 * offline engine's words always are. The clip's and the job's answers say so, with the words and
 * the two ways to a box as ready PATCH /clips/{id} bodies: the title as heard, or typed words.
 */

interface Unsure {
  word: string;
  confidence: number;
}

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export function hookTitleDropped(render: Record<string, any> | null | undefined, title: string | undefined) {
  const message = render?.hook_title_off;
  if (typeof message !== "string" || render?.hook_title !== true) return {};
  const unsure: Unsure[] = Array.isArray(render.hook_title_unsure)
    ? render.hook_title_unsure.filter(
        (u: Partial<Unsure>) => typeof u?.word === "string" && typeof u.confidence === "number",
      )
    : [];
  const heard = title?.trim() || "";
  return {
    hook_title_dropped: {
      reason: "low_confidence" as const,
      message,
      unsure_words: unsure.map((u) => ({ word: u.word, confidence: Math.max(0, Math.min(1, u.confidence)) })),
      choices: [
        {
          choice: "burn_anyway" as const,
          description: `draw the title as heard${heard ? `: "${heard}"` : ""}`,
          restyle: { hook_title: true, hook_title_anyway: true },
        },
        {
          choice: "own_words" as const,
          description: "type the words the box shows (here the title as heard, to correct)",
          restyle: { hook_title: heard || "Your words" },
        },
      ],
    },
  };
}
