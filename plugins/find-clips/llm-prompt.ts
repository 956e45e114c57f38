/**
 * What the llm engine asks and how its answer is read: the prompt, the JSON schema, and the checks
 * on the parts of an answer that are not times (sub-scores and titles). The rules are the
 * heuristic's (score.ts, titles): the four sub-scores with a one-line reason each, and titles of 3–8
 * words that are neither a lone word nor taken from a web address or a sponsor read.
 */
import type { Prepared, FindOptions } from "./heuristic.js";
import type { SubScore, SubScores } from "./score.js";

export const SUB_SCORES = ["hook", "coherence", "payoff", "delivery"] as const;

const subScore = (what: string) => ({
  type: "object",
  properties: {
    value: { type: "integer", description: `${what}, 0 to 100.` },
    reason: { type: "string", description: "One line on why (at most 100 characters)." },
  },
  required: ["value", "reason"],
  additionalProperties: false,
});

/** The answer's JSON Schema (strict mode: every property required, nothing extra). */
export const ANSWER_SCHEMA = {
  type: "object",
  properties: {
    clips: {
      type: "array",
      items: {
        type: "object",
        properties: {
          start: { type: "number", description: "Start time (s) of the clip's first sentence, copied from the list." },
          end: { type: "number", description: "End time (s) of the clip's last sentence, copied from the list." },
          title: {
            type: "string",
            description:
              "A title a person would post: 3 to 8 words naming the claim or topic, not " +
              "one word, nothing from a web address or a sponsor read.",
          },
          reason: { type: "string", description: "One sentence on why this moment works as a clip." },
          score: { type: "integer", description: "How strong the clip is overall, 0 to 100." },
          scores: {
            type: "object",
            properties: {
              hook: subScore("How strongly the opening makes a claim, a number, a promise or a tension"),
              coherence: subScore(
                "How well it stands alone: one speaker or one exchange, one topic, no missing context",
              ),
              payoff: subScore("What the viewer gets: a twist, a finding, advice or a punchline"),
              delivery: subScore("Pace, energy and few fillers"),
            },
            required: [...SUB_SCORES],
            additionalProperties: false,
          },
        },
        required: ["start", "end", "title", "reason", "score", "scores"],
        additionalProperties: false,
      },
    },
  },
  required: ["clips"],
  additionalProperties: false,
} as const;

const fmt = (t: number) => t.toFixed(2);

export function buildMessages(
  p: Prepared,
  opts: FindOptions & { contentType?: string },
): Array<{ role: "system" | "user"; content: string }> {
  const system =
    "You choose the moments of a recording worth posting as short vertical video clips. A good clip opens " +
    "with a hook that makes a claim, gives a number, makes a promise or sets up a tension (not just any " +
    "question), is one complete thought by one speaker or one exchange that makes sense without the rest of " +
    "the episode, delivers a payoff (a twist, a finding, advice, a punchline) and ends on a finished sentence. " +
    "Skip greetings, thanks, introductions, logistics, sponsor reads, sign-offs and small talk. Give each clip " +
    "four sub-scores from 0 to 100, each with a one-line reason: hook, coherence, payoff and delivery. Titles " +
    "are 3 to 8 words a person would post, naming the claim or topic; never one word, never a word from a web " +
    "address or a sponsor read. Answer only with JSON that matches the schema.";
  const taken = (opts.existing ?? []).filter((c) => Number.isFinite(c.start) && Number.isFinite(c.end));
  const lines = [
    `Content: ${opts.contentType ?? "podcast"}.`,
    `Each clip must last between ${opts.min} and ${opts.max} seconds of speech, ideally about ${opts.target} s.`,
    `Return at most ${opts.count} clips, best first. Clips must not overlap each other.`,
    "A clip is a run of whole sentences: `start` is the start time of its first " +
      "sentence and `end` the end time of its last sentence, copied exactly from the list.",
  ];
  if (opts.about) {
    lines.push(
      `Only pick moments about this brief: ${JSON.stringify(opts.about)}. A clip ` +
        `is as long as the passage that answers it, not as long as allowed.`,
    );
    // A brief may be answered by a clip already listed: the model may return its span unchanged.
    if (taken.length)
      lines.push(
        `Already listed (you may return one of these spans exactly when it is the ` +
          "best answer; otherwise do not overlap them): " +
          `${taken.map((c) => `${fmt(c.start)}–${fmt(c.end)}`).join(", ")}.`,
      );
  } else if (taken.length)
    lines.push(`Already taken, do not overlap: ${taken.map((c) => `${fmt(c.start)}–${fmt(c.end)}`).join(", ")}.`);
  lines.push("", "Transcript, one sentence per line: [number] start–end speaker: text");
  for (const s of p.sentences) {
    const speaker = s.words[0]?.speaker ?? "";
    lines.push(`[${s.index}] ${fmt(s.start)}–${fmt(s.end)}${speaker ? ` ${speaker}` : ""}: ${s.text}`);
  }
  return [
    { role: "system", content: system },
    { role: "user", content: lines.join("\n") },
  ];
}

/** The model's sub-scores, each clamped to 0–100 with a trimmed reason; undefined unless all four are usable. */
export function checkScores(raw: unknown): SubScores | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const out: Partial<Record<(typeof SUB_SCORES)[number], SubScore>> = {};
  for (const k of SUB_SCORES) {
    // biome-ignore lint/suspicious/noExplicitAny: an LLM's JSON answer, checked field by field
    const s = (raw as Record<string, any>)[k];
    if (typeof s?.value !== "number" || !Number.isFinite(s.value) || typeof s.reason !== "string" || !s.reason.trim())
      return undefined;
    out[k] = { value: Math.max(0, Math.min(100, Math.round(s.value))), reason: s.reason.trim().slice(0, 120) };
  }
  return out as SubScores;
}

const URLISH = /https?:|www\.|\.(com|org|net|io|co|fm|ly|app)\b|\//i;

/**
 * Why the model's title cannot be used, or undefined when it can: 3–8 words, no web address, and no
 * word from the episode's sponsor reads (words said only there, passed in by the caller).
 */
export function titleProblem(title: string, sponsorWords: Set<string> = new Set()): string | undefined {
  const words = title.trim().split(/\s+/).filter(Boolean);
  if (words.length < 3 || words.length > 8)
    return `title has ${words.length} word${words.length === 1 ? "" : "s"}, not 3–8`;
  if (URLISH.test(title)) return "title holds a web address";
  const sponsor = words.find((w) => sponsorWords.has(w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")));
  return sponsor ? `title holds "${sponsor}" from a sponsor read` : undefined;
}
