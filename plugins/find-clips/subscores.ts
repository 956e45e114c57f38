/**
 * The four sub-scores of a window a reviewer can check, each 0..1 with a one-line reason: hook,
 * coherence, payoff (with the window's key terms) and delivery. score.ts weighs them into the
 * overall quality; they are kept apart from that weighing and its penalties so each rule reads alone.
 */
import { density, facts, isLowInformation, type Facts } from "./features.js";
import { rebuts, responds, sentenceShape, type Shape } from "./structure.js";
import { contentStems, speakerOf, type EpisodeStats } from "./stats.js";
import { FILLER_PAIRS, FILLERS, tokens, type Sentence, type Word } from "./text.js";
import { endsMidSentence, type SubScore, type Window } from "./window.js";

export const clamp01 = (v: number) => Math.max(0, Math.min(1, v));
const quote = (s: Sentence) =>
  s.text.length > 48 ? `“${s.text.slice(0, 45).replace(/\s+\S*$/, "")}…”` : `“${s.text}”`;

/**
 * Hook: the opening makes a claim, gives a promise, advice or a tension, or opens a story. Numbers
 * and superlatives count only as far as the passage has a shape (structure.ts) to hold them: a
 * figure in a welcome or a biography hooks nobody. A bare question does not hook.
 */
export function hook(w: Window, shape: Shape): SubScore {
  const [first, second] = w.sentences as [Sentence, Sentence | undefined];
  let f = facts(first);
  let s = first;
  // One exchange: a question answered by the other speaker hooks with its answer's first line.
  if (f.question && second && speakerOf(second) !== speakerOf(first) && !f.show) {
    s = second;
    f = facts(second);
  }
  if (f.show) return { value: 0.05, reason: `opens on show business (${f.show})` };
  const what: string[] = [];
  const held = 0.35 + 0.65 * shape.value;
  let v = 0.15;
  if (f.numbers) (v += 0.2 * held), what.push("a number");
  if (f.superlative) (v += 0.15 * held), what.push("a superlative");
  if (f.sweeping) (v += 0.15), what.push("a sweeping claim");
  if (f.contrast || f.comparison) (v += 0.1), what.push(f.comparison && !f.contrast ? "a comparison" : "a tension");
  if (f.promise) (v += 0.2), what.push("a promise");
  if (f.advice) (v += 0.1), what.push("advice");
  if (f.claim) v += 0.15 * held;
  // A story's first line sets a scene in the past ("At my second restaurant, a woman left us…").
  if (shape.kinds.includes("a story and its twist") && sentenceShape(s).past && !f.dangling)
    (v += 0.2), what.push("a story's opening");
  if (first !== s && shape.kinds.includes("a question and a pointed answer"))
    (v += 0.1), what.push("a question with a pointed answer");
  if (isLowInformation(f) && !sentenceShape(s).past) v -= 0.2;
  if (f.words < 4 || f.words > 35) v -= 0.1;
  const by = s === first ? "opens" : "the answer opens";
  if (what.length) return { value: clamp01(v), reason: `${by} with ${what.slice(0, 3).join(", ")}: ${quote(s)}` };
  if (first !== s || f.question) return { value: clamp01(v), reason: "opens on a question that makes no claim" };
  return { value: clamp01(v), reason: `opens on a plain statement: ${quote(s)}` };
}

/** A passage that opens in the middle of a story leaves out its beginning. */
const STORY_COST = 0.2;

/** Coherence: one speaker or one exchange, no dangling start, starts on a topic and finishes its thought. */
export function coherence(w: Window, stats: EpisodeStats): SubScore {
  const ss = w.sentences;
  const first = ss[0]!;
  const last = ss[ss.length - 1]!;
  const lf = facts(last);
  // Turns cost only when they do not answer the turn before (a new subject, chat): an exchange
  // that builds (set-up, reply, reaction, punchline; a disagreement) is one thought.
  const starts = ss.flatMap((s, i) => (i > 0 && speakerOf(s) !== speakerOf(ss[i - 1]!) ? [i] : []));
  const turns = starts.length;
  const loose = starts.filter((i) => !responds(ss[i]!)).length;
  let v = 1;
  const notes: string[] = [];
  if (turns === 0) notes.push("one speaker");
  else if (turns === 1 && facts(first).question) notes.push("one exchange (a question and its answer)");
  else if (loose === 0) (v -= 0.02 * turns), notes.push(`an exchange of ${turns + 1} turns, each answering the last`);
  else
    (v -= Math.min(0.5, 0.04 * turns + 0.12 * loose)),
      notes.push(`back-and-forth over ${turns + 1} turns, ${loose} off the thread`);
  const d = facts(first).dangling;
  if (d) (v -= 0.35), notes.push(`starts on a dangling “${d}”`);
  const { boundary, depth } = stats.topics;
  // The speaker's own set-up just before ("And here is the part nobody mentions.") belongs to the clip.
  const before = stats.sentences[first.index - 1];
  if (before && speakerOf(before) === speakerOf(first) && facts(before).setup && !facts(before).show)
    (v -= 0.25), notes.push("starts after its own set-up");
  // The middle of a story: the same speaker has been telling it in the past for two sentences and more.
  const told = stats.sentences.slice(Math.max(0, first.index - 2), first.index);
  if (
    told.length === 2 &&
    sentenceShape(first).past &&
    told.every((s) => speakerOf(s) === speakerOf(first) && sentenceShape(s).past && !facts(s).question)
  )
    (v -= STORY_COST), notes.push("starts in the middle of a story");
  if (boundary[first.index]) notes.push("starts where a topic starts");
  else if (first.index > 0 && speakerOf(first) !== speakerOf(stats.sentences[first.index - 1]!))
    v -= 0.05 * (1 - (depth[first.index] ?? 0));
  else v -= 0.2 * (1 - (depth[first.index] ?? 0));
  const crossed = ss.findIndex((s, i) => i > 0 && boundary[s.index] && (depth[s.index] ?? 0) >= 0.5);
  if (crossed > 0) (v -= crossed >= ss.length - 2 ? 0.3 : 0.15), notes.push("runs into the next topic");
  // A finished last thought: a terminal sentence that neither asks nor sets up what comes next.
  const after = stats.sentences[last.index + 1];
  if (endsMidSentence(w, stats)) (v -= 0.3), notes.push("ends mid-sentence");
  else if (lf.question) (v -= 0.45), notes.push("ends on a question");
  else if (lf.setup) (v -= 0.45), notes.push("ends on a set-up");
  else if (after && speakerOf(after) === speakerOf(last) && facts(after).dangling && !boundary[after.index])
    (v -= 0.15), notes.push("the thought goes on after the end");
  else notes.push("ends on a finished thought");
  // An exchange cut short: the other speaker takes the last line up head on ("Then keep it…").
  const reply = stats.sentences.slice(last.index + 1, last.index + 4).find((s) => speakerOf(s) !== speakerOf(last));
  if (reply && rebuts(reply, false) && ss.some((s) => speakerOf(s) === speakerOf(reply)))
    (v -= 0.2), notes.push("the other speaker answers back after the end");
  // A monologue cut short: the same speaker goes on about the same topic after the end, so the
  // passage is only part of what was said (the start has its counterpart above).
  if (after && speakerOf(after) === speakerOf(last) && !boundary[after.index] && !facts(after).question) {
    v -= 0.2 * (1 - (depth[after.index] ?? 0));
    if (!notes.includes("the thought goes on after the end")) notes.push("the speaker goes on after the end");
  }
  return { value: clamp01(v), reason: notes.join("; ") };
}

/**
 * Payoff: the passage is a complete thought with a turn (its shape, structure.ts) and its last
 * sentences land advice, a finding, a twist or a conclusion. Information (numbers, names, contrast
 * and causal words) and topical focus count for less, and only as far as the shape holds them.
 */
export function payoff(w: Window, stats: EpisodeStats, shape: Shape): { sub: SubScore; keyTerms: string[] } {
  const statements = w.sentences.filter((s) => !facts(s).question);
  const tail = statements.slice(-3).map(facts);
  const lands: string[] = [];
  let v = 0;
  if (tail.some((f) => f.advice)) (v += 0.35), lands.push("advice");
  if (tail.some((f) => f.numbers || f.causal)) (v += 0.3), lands.push("a finding");
  if (tail.some((f) => f.contrast)) (v += 0.2), lands.push("a twist");
  if (tail.slice(-2).some((f) => f.claim)) (v += 0.2), lands.push("a conclusion");
  // A short, pointed last line (a punchline) lands an exchange or a story without any figure.
  if (shape.landing && !lands.length) (v += 0.3), lands.push("a pointed last line");
  const all = w.sentences.map(facts);
  const sum = (k: (f: Facts) => number) => all.reduce((a, f) => a + k(f), 0);
  const dens = clamp01(sum(density) / Math.max(1, all.length) / 1.2) * (0.3 + 0.7 * shape.value);
  const focus = _focus(w, stats);
  const value = clamp01(0.45 * shape.value + 0.3 * clamp01(v) + 0.15 * dens + 0.1 * focus.value);
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  const info = `${n(
    sum((f) => f.numbers),
    "number",
    "numbers",
  )}, ${n(
    sum((f) => f.names),
    "name",
    "names",
  )}, ${n(
    sum((f) => f.contrast + f.causal),
    "contrast or causal word",
    "contrast or causal words",
  )} in ${n(all.length, "sentence", "sentences")}`;
  const shaped = shape.kinds.length ? `${shape.kinds.join(", ")}; ` : "no turn in the thought; ";
  const landed = lands.length ? `ends on ${lands.join(", ")}` : "no payoff in its last sentences";
  const reason = `${shaped}${landed}; ${info}`;
  return { sub: { value, reason }, keyTerms: focus.terms };
}

// Windows share their sentences and words, so per-sentence and per-word work is done once.
const _stemCache = new WeakMap<Sentence, string[]>();
function _stems(s: Sentence): string[] {
  let v = _stemCache.get(s);
  if (!v) _stemCache.set(s, (v = contentStems(s.text)));
  return v;
}
const _tokCache = new WeakMap<Word, string>();
function _token(w: Word): string {
  let v = _tokCache.get(w);
  if (v === undefined) _tokCache.set(w, (v = tokens(w.text)[0] ?? ""));
  return v;
}

function _focus(w: Window, stats: EpisodeStats): { value: number; terms: string[] } {
  const tf = new Map<string, number>();
  for (const s of w.sentences) for (const t of _stems(s)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const weighted = [...tf]
    .map(([t, n]) => [t, n * (stats.idf.get(t) ?? 1)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = weighted.reduce((a, [, v]) => a + v, 0);
  if (!total) return { value: 0, terms: [] };
  const top = weighted.slice(0, 5);
  // A focused window repeats a few distinctive terms; a rambling one spreads over many.
  const repeated = top.filter(([t]) => (tf.get(t) ?? 0) >= 2).length;
  return {
    value: clamp01((top.reduce((a, [, v]) => a + v, 0) / total) * 0.6 + (repeated / 5) * 0.8),
    terms: top.map(([t]) => t),
  };
}

/** Delivery: pace against the episode's median, loudness against its mean, few fillers and silences. */
export function delivery(w: Window, stats: EpisodeStats): SubScore {
  const speech = w.pieces.reduce((a, p) => a + (p.end - p.start), 0) || 1;
  const rate = w.words.length / speech;
  const pace = clamp01(0.5 + (rate / stats.medianRate - 1) * 1.5);
  const toks = w.words.map(_token);
  let fillers = toks.filter((t) => FILLERS.has(t)).length;
  for (let i = 1; i < toks.length; i++) if (FILLER_PAIRS.has(`${toks[i - 1]} ${toks[i]}`)) fillers++;
  const clean = clamp01(1 - (fillers / Math.max(1, toks.length)) * 10);
  const notes = [`${rate.toFixed(1)} words/s`, `${fillers} filler${fillers === 1 ? "" : "s"}`];
  let energy = pace;
  const secs = stats.loudness?.slice(Math.floor(w.start), Math.ceil(w.end)).filter((v) => Number.isFinite(v)) ?? [];
  if (secs.length && stats.loudnessMean !== undefined) {
    const diff = secs.reduce((a, b) => a + b, 0) / secs.length - stats.loudnessMean;
    energy = (pace + clamp01(0.5 + diff / 6)) / 2;
    notes.push(`${diff >= 0 ? "+" : ""}${diff.toFixed(1)} dB against the episode`);
  }
  return { value: clamp01(0.6 * energy + 0.4 * clean), reason: notes.join(", ") };
}
