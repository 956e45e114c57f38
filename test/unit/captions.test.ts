import { describe, expect, it } from "vitest";
import webvtt from "webvtt-parser";
import { layoutLines, toCues, toSrt, toTxt, toVtt, type TranscriptWord } from "../../daemon/render/captions.js";

const { WebVTTParser } = webvtt;

/** Words of a known script, 0.35 s each with 0.05 s gaps, a longer pause after each sentence. */
function speak(
  script: string,
  opts: { wordSeconds?: number; gap?: number; sentencePause?: number; at?: number } = {},
): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  let t = opts.at ?? 0.5;
  for (const text of script.split(/\s+/).filter(Boolean)) {
    words.push({ text, start: t, end: t + (opts.wordSeconds ?? 0.35), confidence: 0.9 });
    t += (opts.wordSeconds ?? 0.35) + (/[.!?]$/.test(text) ? (opts.sentencePause ?? 0.3) : (opts.gap ?? 0.05));
  }
  return words;
}

const SCRIPT =
  "And so, my fellow Americans: ask not what your country can do for you, ask what you can do for your country. " +
  "My fellow citizens of the world: ask not what America will do for you, " +
  "but what together we can do for the freedom of man. " +
  "Finally, whether you are citizens of America or citizens of the world, " +
  "ask of us here the same high standards of strength and sacrifice which " +
  "we ask of you.";

const SRT_TIME = /^(\d{2}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2}):(\d{2}):(\d{2}),(\d{3})$/;
const toSec = (h: string, m: string, s: string, ms: string) => +h * 3600 + +m * 60 + +s + +ms / 1000;

describe("toCues", () => {
  const words = speak(SCRIPT);
  const cues = toCues(words);

  it("keeps every cue within 2 lines of 42 characters and about 7 seconds", () => {
    expect(cues.length).toBeGreaterThan(5);
    for (const c of cues) {
      expect(c.lines.length).toBeLessThanOrEqual(2);
      for (const l of c.lines) expect(l.length).toBeLessThanOrEqual(42);
      expect(c.end - c.start).toBeLessThanOrEqual(7);
    }
  });

  it("uses every word once, in order, with cues that never overlap", () => {
    let next = 0;
    let lastEnd = 0;
    for (const c of cues) {
      expect(c.words[0]).toBe(next);
      next = c.words[1];
      expect(c.start).toBeGreaterThanOrEqual(lastEnd);
      expect(c.end).toBeGreaterThanOrEqual(c.start);
      lastEnd = c.end;
    }
    expect(next).toBe(words.length);
    expect(cues.flatMap((c) => c.lines.join(" ").split(" "))).toEqual(words.map((w) => w.text));
  });

  it("breaks at sentence ends", () => {
    const ends = cues.map((c) => words[c.words[1] - 1]!.text);
    expect(ends).toContain("country.");
    expect(ends).toContain("man.");
    // No cue runs across a sentence end.
    for (const c of cues) {
      const inner = words.slice(c.words[0], c.words[1] - 1);
      expect(inner.some((w) => /[.!?]$/.test(w.text))).toBe(false);
    }
  });

  it("breaks at a pause even when the text would fit", () => {
    const ws = [...speak("hello there", { at: 1 }), ...speak("general kenobi", { at: 4 })];
    expect(toCues(ws).map((c) => c.lines.join(" "))).toEqual(["hello there", "general kenobi"]);
  });

  it("breaks a long slow run at 7 seconds", () => {
    const slow = speak("one two three four five six seven eight nine ten", { wordSeconds: 1.2, gap: 0.1 });
    const cs = toCues(slow);
    expect(cs.length).toBeGreaterThan(1);
    for (const c of cs) expect(c.end - c.start).toBeLessThanOrEqual(7);
  });

  it("balances two lines and honours custom limits", () => {
    expect(layoutLines("a bb ccc dddd eeeee ffffff".split(" "), 16, 2)).toEqual(["a bb ccc dddd", "eeeee ffffff"]);
    expect(layoutLines(["x".repeat(30), "y".repeat(30)], 42, 1)).toBeNull();
    // A break after a comma wins over a slightly better balance (19/12 against 16/15 characters).
    expect(layoutLines("It was late, so we all went home".split(" "), 24, 2)).toEqual([
      "It was late,",
      "so we all went home",
    ]);
    expect(layoutLines("It was late so we all went home".split(" "), 24, 2)).toEqual([
      "It was late so",
      "we all went home",
    ]);
    for (const c of toCues(words, { maxChars: 20, maxLines: 1, maxSeconds: 3 })) {
      expect(c.lines).toHaveLength(1);
      expect(c.lines[0]!.length).toBeLessThanOrEqual(20);
    }
  });
});

describe("toSrt", () => {
  it("numbers cues from 1 with HH:MM:SS,mmm times in order", () => {
    const srt = toSrt(speak(SCRIPT, { at: 3661.25 }));
    const blocks = srt.trim().split(/\n\n/);
    let last = -1;
    blocks.forEach((b, i) => {
      const [index, time, ...text] = b.split("\n");
      expect(index).toBe(String(i + 1));
      const m = SRT_TIME.exec(time!);
      expect(m, time).not.toBeNull();
      const start = toSec(m![1]!, m![2]!, m![3]!, m![4]!);
      const end = toSec(m![5]!, m![6]!, m![7]!, m![8]!);
      expect(start).toBeGreaterThanOrEqual(last);
      expect(end).toBeGreaterThanOrEqual(start);
      last = end;
      expect(text.length).toBeGreaterThanOrEqual(1);
      expect(text.length).toBeLessThanOrEqual(2);
    });
    expect(blocks[0]).toMatch(/^1\n01:01:01,250 --> /);
  });
});

describe("toVtt", () => {
  it("parses cleanly with a WebVTT parser, cue times matching the words", () => {
    const words = speak(SCRIPT);
    const parsed = new WebVTTParser().parse(toVtt(words), "metadata");
    expect(parsed.errors).toEqual([]);
    const cues = toCues(words);
    expect(parsed.cues).toHaveLength(cues.length);
    parsed.cues.forEach((c, i) => {
      expect(c.startTime).toBeCloseTo(cues[i]!.start, 3);
      expect(c.endTime).toBeCloseTo(cues[i]!.end, 3);
      expect(c.text).toBe(cues[i]!.lines.join("\n"));
    });
  });

  it("escapes markup so text cannot break a cue", () => {
    const words = speak("1 < 2 & 3 --> 4 <b>bold</b>");
    const vtt = toVtt(words);
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    const parsed = new WebVTTParser().parse(vtt, "metadata");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues).toHaveLength(1);
    expect(parsed.cues[0]!.text).toBe("1 &lt; 2 &amp; 3 --&gt; 4 &lt;b&gt;bold&lt;/b&gt;");
  });
});

describe("toTxt", () => {
  it("writes one paragraph per segment and labels speakers only when there are several", () => {
    const seg = (text: string, speaker = "S1") => ({
      start: 0,
      end: 1,
      text,
      speaker,
      words: [0, 1] as [number, number],
    });
    expect(toTxt({ segments: [seg("Hello there."), seg("Bye.")] })).toBe("Hello there.\n\nBye.\n");
    expect(toTxt({ segments: [seg("Hi.", "S1"), seg("Yo.", "S2")] })).toBe("S1: Hi.\n\nS2: Yo.\n");
  });
});
