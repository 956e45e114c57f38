// Issue 28, general causes of wrong picks found on the tuning half: the episode's framing (a host's
// greeting turn, the goodbye turn, a guest's origin story, call-in hand-overs, windows in the
// warm-up or wrap-up), a set-up line that announces what follows, a story entered in its middle, a
// fronted "when…" clause in raw text, a plateau of equal topic depth, and a hyphenated age read as
// a span of years. Each is checked on a few sentences built here.
import { describe, expect, it } from "vitest";
import { facts, readFacts } from "../../plugins/find-clips/features.js";
import { toWindow } from "../../plugins/find-clips/heuristic.js";
import { markPassageKinds, readSignals } from "../../plugins/find-clips/kinds.js";
import { restoreSentenceEnds } from "../../plugins/find-clips/restore.js";
import { buildStats, scoreWindow } from "../../plugins/find-clips/score.js";
import { segmentTopics } from "../../plugins/find-clips/segment.js";
import { toSentences, type Sentence, type Word } from "../../plugins/find-clips/text.js";

/** "A: text" lines as timed words: 0.3 s a word, 0.5 s between sentences, starting at `from`. */
function words(lines: string[], from = 0): Word[] {
  const out: Word[] = [];
  let t = from;
  for (const line of lines) {
    const [, who, text] = /^(\w): (.*)$/.exec(line)!;
    for (const sentence of text!.match(/[^.?!]+[.?!]+/g)!) {
      for (const w of sentence.trim().split(/\s+/)) {
        out.push({ text: w, start: t, end: t + 0.25, speaker: `S${who}` });
        t += 0.3;
      }
      t += 0.5;
    }
  }
  return out;
}

const sentencesOf = (ws: Word[]) => toSentences(ws, [], { maxUnit: 75 });
const kindOf = (ss: Sentence[], start: string) => facts(ss.find((s) => s.text.startsWith(start))!).show;

describe("find-clips: the episode's framing", () => {
  it("a host's whole greeting turn is the welcome, its question of the night and the guests included", () => {
    const ss = sentencesOf(
      words([
        "A: Hello and welcome to Open Country. I'm Owen. Tonight, the biggest question we've ever put to a debate.",
        "A: Should wolves come back to the hills? They were wiped out here about three hundred years ago.",
        "A: For the motion, an ecologist who has tracked wolves in four countries. Isla, why wolves?",
        "B: Because the deer have nothing to fear, and the hills are bare because of it.",
      ]),
    );
    markPassageKinds(ss, 600);
    expect(kindOf(ss, "Tonight")).toBe("introduction");
    expect(kindOf(ss, "They were wiped out")).toBe("introduction");
    expect(kindOf(ss, "For the motion")).toBe("introduction");
    // The question that hands over is where the conversation starts.
    expect(kindOf(ss, "Isla, why wolves?")).toBeUndefined();
    expect(kindOf(ss, "Because the deer")).toBeUndefined();
  });

  it("the last turn that says goodbye in the last sixth is the sign-off, its figures included", () => {
    const body = Array.from({ length: 40 }, (_, i) => `B: The hills were green in the year ${i + 1}.`);
    const ws = words([
      ...body,
      "A: Before the debate, thirty-five percent of our audience were for the motion.",
      "A: Afterwards, forty-four percent. Thank you, Isla, thank you, Jean. Next week, hedgerows. Good night.",
    ]);
    const ss = sentencesOf(ws);
    markPassageKinds(ss, ws.at(-1)!.end);
    expect(kindOf(ss, "Before the debate")).toBe("sign-off");
    expect(kindOf(ss, "Good night")).toBe("sign-off");
    expect(kindOf(ss, "The hills were green in the year 40")).toBeUndefined();
  });

  it("the answer to 'how did you get into it?' is the guest's biography, a short reaction aside", () => {
    const ss = sentencesOf(
      words([
        "A: So how did you get into nursing in the first place?",
        "B: My mother was a nurse, and I swore I would never do it. Then I broke my arm at nineteen.",
        "A: Of course you did.",
        "B: The nurse who set it talked me through every step, and I changed my course that month.",
        "A: Let's talk about triage. Who do you see first?",
        "B: The quiet patient, almost always, because the screaming one is breathing.",
      ]),
    );
    markPassageKinds(ss, 600);
    expect(kindOf(ss, "My mother was a nurse")).toBe("biography");
    expect(kindOf(ss, "The nurse who set it")).toBe("biography");
    expect(kindOf(ss, "The quiet patient")).toBeUndefined();
  });

  it("a call-in host's hand-over is show business, not the call's opening", () => {
    expect(readFacts("Back to the phones. We've got Ian on the line.").show).toBe("logistics");
    expect(readFacts("We've got time for one more.").show).toBe("logistics");
  });

  it("a window in the warm-up of a long recording costs a little, the same one later does not", () => {
    const lines = Array.from(
      { length: 12 },
      (_, i) => `B: Most fires are started by embers ${i + 1} kilometres ahead, because the wind carries them.`,
    );
    const early = words(lines, 5);
    const late = words(lines, 300);
    const score = (ws: Word[]) => {
      const ss = sentencesOf(ws);
      const stats = buildStats(ss, 900, true);
      const w = toWindow(ws, 0, ws.length - 1, 900, ss);
      return scoreWindow(w, stats, 60, 120);
    };
    const a = score(early);
    const b = score(late);
    expect(a.reasons).toContain("in the episode's warm-up");
    expect(b.reasons).not.toContain("in the episode's warm-up");
    expect(a.quality).toBeLessThan(b.quality);
  });
});

describe("find-clips: where a passage starts and stops", () => {
  it("a short line that announces 'the strangest part' is a set-up, and no topic starts after it", () => {
    expect(readFacts("And then comes the strangest part.").setup).toBe(true);
    expect(readFacts("The strangest part was the smell of the bones.").setup).toBe(false);
  });

  it("a window that opens two sentences into a story says so", () => {
    const ws = words([
      "B: One father spent the whole first half screaming at me. So at half time, I walked over to him.",
      "B: He took my whistle. Within four minutes, he had given a free kick the other way.",
      "B: He came over and handed the whistle back. He never said another word.",
    ]);
    const ss = sentencesOf(ws);
    const stats = buildStats(ss, 600, true);
    const from = ss[3]!;
    const w = toWindow(ws, from.firstWord, ws.length - 1, 600, ss.slice(3));
    expect(scoreWindow(w, stats, 60, 120).reasons.join(" ")).toContain("starts in the middle of a story");
  });

  it("raw text keeps a fronted 'when…' clause with its main clause across a comma's pause", () => {
    const text = "when a whale dies and sinks to the sea floor it can feed a whole community for fifty years";
    const ws: Word[] = [];
    let t = 0;
    for (const w of text.split(" ")) {
      ws.push({ text: w, start: t, end: t + 0.25, speaker: "S1" });
      // A comma's pause after "floor".
      t += w === "floor" ? 0.6 : 0.3;
    }
    const ends = restoreSentenceEnds(ws);
    const floor = ws.findIndex((w) => w.text === "floor");
    expect(ends.has(floor)).toBe(false);
    expect(ends.get(ws.length - 1)).toBe(true);
  });

  it("a plateau of equal topic depth gives one boundary, not one at every gap", () => {
    const texts = [
      "bees hive honey comb",
      "bees hive honey queen",
      "bees hive comb queen",
      "He took it.",
      "He was pleased.",
      "Within minutes.",
      "He came over.",
      "whistle referee match pitch",
      "whistle referee match linesman",
      "whistle referee pitch linesman",
    ];
    const { boundary } = segmentTopics(texts);
    const inner = boundary.slice(1).filter(Boolean).length;
    expect(inner).toBeLessThanOrEqual(2);
  });

  it("a hyphenated age is somebody's age, not a span of the speaker's career", () => {
    const text = "One father spent the whole first half screaming, at me, at a ten-year-old linesman.";
    expect(readSignals(readFacts(text), text).career).toBeLessThan(2);
    const career = "I spent ten years in the kitchen.";
    expect(readSignals(readFacts(career), career).career).toBe(2);
  });
});
