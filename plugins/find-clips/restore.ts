/**
 * Sentence ends for raw speech-engine text (lower case, no punctuation), restored from what the
 * words still carry: the pauses between them and their grammar. A speech engine's segments are no
 * guide (a fixed 30-second split lands mid-sentence), so they are not used. A gap is a sentence end
 * when it is a long pause, or a middling pause (a comma's or a full stop's) where the grammar
 * agrees: the words before it make a clause (they hold a verb) and do not hang on the next word
 * ("the", "of", "and", "my"), and the words after it open one (a subject, a wh-word, "so", "but").
 * wink-nlp tags the words one speaker turn at a time, so the tags see the context.
 */
import { nlp } from "./nlp.js";

/** A timed word, as text.ts's Word has it (named here so text.ts and this file do not import each other). */
interface Word {
  text: string;
  start: number;
  end: number;
  speaker?: string | null;
}

const its = nlp.its;
/** Words that cannot end a sentence: they need what follows. */
const HANGS = new Set(["DET", "ADP", "CCONJ", "SCONJ", "AUX", "PART"]);
const HANG_WORDS = new Set(["my", "your", "his", "her", "our", "their", "its", "the", "a", "an", "to", "of", "very"]);
/** Words a new sentence opens on in speech. */
const OPENS = new Set(["PRON", "DET", "PROPN", "INTJ", "ADV", "AUX"]);
const OPEN_WORDS = new Set(["then", "now", "well", "what", "how", "why", "where"]);
/**
 * Words that carry on the sentence before: relative pronouns and the like. Conjunctions ("and",
 * "but", "when", "since") open sentences in speech too, but after a middling pause they are far
 * more often a comma's continuation, so only a long pause ends a sentence before them.
 */
const CONTINUES = new Set(["which", "who", "whom", "whose", "than", "that", "or", "nor", "of", "to"]);
/**
 * Words that open a fronted clause ("when a whale dies, it can feed…", "if you wait, it rises"):
 * the first pause after one is the clause's comma, and the sentence goes on to its main clause.
 */
const FRONTED = new Set(["when", "if", "although", "though", "while", "whenever", "unless", "once", "after", "before"]);

interface Tagged {
  first: string;
  last: string;
  verb: boolean;
}

/** Parts of speech of each word of one turn: its first and last token's tags and whether it is a verb. */
function tagTurn(words: Word[]): Tagged[] {
  const starts: number[] = [];
  let text = "";
  for (const w of words) {
    if (text) text += " ";
    starts.push(text.length);
    text += w.text.trim();
  }
  const doc = nlp.readDoc(text);
  const values = doc.tokens().out() as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  const out: Tagged[] = words.map(() => ({ first: "X", last: "X", verb: false }));
  let at = 0;
  let k = 0;
  values.forEach((v, i) => {
    at += spaces[i]!.length;
    while (k + 1 < starts.length && starts[k + 1]! <= at) k++;
    const o = out[k]!;
    if (o.first === "X") o.first = pos[i]!;
    o.last = pos[i]!;
    if (pos[i] === "VERB" || pos[i] === "AUX") o.verb = true;
    at += v.length;
  });
  return out;
}

const norm = (w: Word | undefined) => (w?.text ?? "").toLowerCase().replace(/[^\p{L}\p{N}']/gu, "");

/**
 * The words that end a sentence in an unpunctuated transcript, each with whether the end is sure
 * (a change of speaker, a long pause, or a middling pause where every sign of grammar agrees) or
 * only likely. Clips start and end on sure ends while they can (heuristic.ts).
 */
export function restoreSentenceEnds(words: Word[]): Map<number, boolean> {
  const ends = new Map<number, boolean>();
  const gaps = words.slice(1).map((w, i) => Math.max(0, w.start - words[i]!.end));
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0.05;
  // Relative to how this speaker and engine leave gaps between words, with floors for engines that
  // leave none (every gap 0): a long pause ends a sentence on its own; a middling one needs grammar.
  const long = Math.max(0.5, median * 8);
  const middling = Math.max(0.25, median * 3);
  let from = 0;
  for (let i = 0; i < words.length; i++) {
    const next = words[i + 1];
    if (next && (next.speaker ?? null) === (words[i]!.speaker ?? null)) continue;
    const turn = words.slice(from, i + 1);
    const tags = tagTurn(turn);
    let since = 0; // words since the last end
    let verb = false;
    let fronted = FRONTED.has(norm(turn[0])); // the sentence opens on a fronted clause, not yet closed

    for (let j = 0; j < turn.length - 1; j++) {
      since++;
      verb ||= tags[j]!.verb;
      const gap = turn[j + 1]!.start - turn[j]!.end;
      if (gap < middling) continue;
      const clause = fronted;
      fronted = false;
      // A fronted clause's comma can be as long as a full stop in careful speech ("if you want to
      // save money, … slow down"): there a long pause alone is not enough, the grammar decides,
      // unless the pause is twice as long.
      let end = gap >= (clause ? long * 2 : long);
      let sure = end;
      if (!end) {
        const before = tags[j]!;
        const after = tags[j + 1]!;
        const lastWord = norm(turn[j]);
        const nextWord = norm(turn[j + 1]);
        // The clause after must hold a verb within a few words.
        const ahead = tags.slice(j + 1, j + 7).some((t) => t.verb);
        let votes = 0;
        if (!HANGS.has(before.last) && !HANG_WORDS.has(lastWord)) votes++;
        else votes -= 2;
        if (OPENS.has(after.first) || OPEN_WORDS.has(nextWord)) votes++;
        if (CONTINUES.has(nextWord) || after.first === "CCONJ" || after.first === "SCONJ") votes -= 2;
        if (verb && since >= 3) votes++;
        else votes -= 1;
        if (ahead) votes++;
        if (clause) votes -= 2;
        // A longer middling pause needs fewer votes.
        end = votes >= (gap >= (middling + long) / 2 ? 2 : 3);
        sure = votes >= 4;
      }
      if (end) {
        ends.set(from + j, sure);
        since = 0;
        verb = false;
        fronted = FRONTED.has(norm(turn[j + 1]));
      }
    }
    ends.set(i, true);
    from = i + 1;
  }
  return ends;
}
