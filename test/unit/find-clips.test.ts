import { afterEach, describe, expect, it } from "vitest";
import { bm25, findClips, toPieces } from "../../plugins/find-clips/heuristic.js";
import findClipsStage, { resolveLimits } from "../../plugins/find-clips/index.js";
import { toSentences, type Transcript, type Word } from "../../plugins/find-clips/text.js";
import { measureLoudness } from "../../plugins/find-clips/loudness.js";
import { fixtureMedia } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const JFK = fixtureMedia("jfk.wav");

// A synthetic episode: a script of sentences spoken at a steady 2.6 words per second with short
// pauses between sentences, so every word time is known exactly.
const SCRIPT = [
  "Welcome back to the show everyone.",
  "Today we talk about a few things that happened this week.",
  "And then we went to the store and it was fine.",
  "Um so yeah it was a normal day really.",
  "Why do most startups get pricing completely wrong?",
  "The truth is that pricing is the biggest lever you have.",
  "If you raise your price by ten percent your profit can double.",
  "Pricing tells customers what your product is worth.",
  "Most founders set a price once and never look at pricing again.",
  "That is the secret mistake that kills small companies.",
  "So test your pricing every quarter and talk to customers.",
  "Anyway let me say something about the weather.",
  "It rained a bit on Tuesday and then it was sunny.",
  "I remember when I was hiking in the mountains last summer.",
  "The mountain trail was steep and the hiking boots were new.",
  "Hiking with new boots is a mistake you only make once.",
  "My feet hurt for three days after that hiking trip.",
  "Now I always break in hiking boots before a trail.",
  "Okay that is all for the first part.",
  "We will be right back after this.",
  "And we are back with more stories.",
  "Let me tell you about the time my laptop died on stage.",
  "The laptop screen went black in front of five hundred people.",
  "I had no backup laptop and no slides.",
  "So I gave the whole talk from memory and it went better.",
  "Never rely on a single laptop for a big talk.",
  "That is it for today thanks for listening.",
];

function makeTranscript(
  script = SCRIPT,
  opts: { punctuate?: boolean; rate?: number; pause?: number } = {},
): Transcript {
  const rate = opts.rate ?? 2.6;
  const pause = opts.pause ?? 0.5;
  const words: Word[] = [];
  const segments: Transcript["segments"] = [];
  let t = 0.4;
  for (const sentence of script) {
    const segStart = t;
    const parts = sentence.split(" ");
    for (const p of parts) {
      const text = opts.punctuate === false ? p.replace(/[.?!,]/g, "") : p;
      words.push({ text, start: +t.toFixed(3), end: +(t + 1 / rate - 0.05).toFixed(3), confidence: 0.9 });
      t += 1 / rate;
    }
    segments!.push({ start: segStart, end: t, text: sentence, speaker: "A" });
    t += pause;
  }
  return { engine: "test", language: "en", duration: +(t + 0.5).toFixed(3), words, segments };
}

const limits = { target: 20, min: 15, max: 30, count: 10, seed: "runs/x/source.wav" };
const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

describe("find-clips heuristic", () => {
  const transcript = makeTranscript();

  it("splits sentences on punctuation and, without it, on segments", () => {
    expect(toSentences(transcript.words, transcript.segments)).toHaveLength(SCRIPT.length);
    const bare = makeTranscript(SCRIPT, { punctuate: false });
    expect(toSentences(bare.words, bare.segments)).toHaveLength(SCRIPT.length);
  });

  it("returns clips within the length limits, non-overlapping, ranked and numbered", () => {
    const clips = findClips(transcript, limits);
    expect(clips.length).toBeGreaterThanOrEqual(3);
    for (const c of clips) {
      expect(c.duration).toBeGreaterThanOrEqual(limits.min);
      expect(c.duration).toBeLessThanOrEqual(limits.max);
      expect(c.end - c.start).toBeGreaterThanOrEqual(c.duration - 1e-6);
      expect(c.ref).toMatch(/^c[0-9a-f]{3,}$/);
      expect(c.score.value).toBeGreaterThanOrEqual(0);
      expect(c.score.value).toBeLessThanOrEqual(100);
      expect(c.title.length).toBeGreaterThan(0);
    }
    for (let i = 0; i < clips.length; i++) {
      expect(clips[i].number).toBe(i + 1);
      if (i) expect(clips[i - 1].score.value).toBeGreaterThanOrEqual(clips[i].score.value);
      for (let j = i + 1; j < clips.length; j++) expect(overlaps(clips[i], clips[j])).toBe(false);
    }
    expect(new Set(clips.map((c) => c.ref)).size).toBe(clips.length);
  });

  it("aligns clips to sentence boundaries", () => {
    const starts = new Set(toSentences(transcript.words).map((s) => s.words[0].start));
    const ends = new Set(toSentences(transcript.words).map((s) => s.words[s.words.length - 1].end));
    for (const c of findClips(transcript, limits)) {
      const first = transcript.words.find((w) => w.start >= c.start)!;
      const last = [...transcript.words].reverse().find((w) => w.end <= c.end)!;
      expect(starts.has(first.start)).toBe(true);
      expect(ends.has(last.end)).toBe(true);
    }
  });

  it("ranks strong openings above filler and housekeeping, and explains why", () => {
    const clips = findClips(transcript, limits);
    const top3 = clips.slice(0, 3).map((c) => c.hook);
    // The pricing passage opens on its question or on the claim that answers it (the fitted ranker
    // chooses the extent); either way it outranks the small talk and the housekeeping.
    expect(top3.some((h) => /^(Why do most startups|The truth is that pricing)/.test(h))).toBe(true);
    expect(top3).toContain("I remember when I was hiking in the mountains last summer.");
    const question = clips.find((c) => /^(Why do most startups|The truth is that pricing)/.test(c.hook))!;
    expect(question.scores!.hook.reason).toMatch(/sweeping claim|superlative/);
    for (const k of ["hook", "coherence", "payoff", "delivery"] as const) {
      expect(question.scores![k].value).toBeGreaterThanOrEqual(0);
      expect(question.scores![k].value).toBeLessThanOrEqual(100);
      expect(question.scores![k].reason.length).toBeGreaterThan(0);
    }
    const intro = clips.find((c) => c.start < 1);
    if (intro) expect(intro.score.value).toBeLessThan(clips[2].score.value);
  });

  it("gives stable refs for the same source and times", () => {
    const a = findClips(transcript, limits).map((c) => c.ref);
    const b = findClips(transcript, limits).map((c) => c.ref);
    expect(a).toEqual(b);
    const other = findClips(transcript, { ...limits, seed: "runs/y/source.wav" }).map((c) => c.ref);
    expect(other).not.toEqual(a);
  });

  it("turns a recording shorter than min_seconds into exactly one whole clip", () => {
    const short = makeTranscript(SCRIPT.slice(4, 6));
    const clips = findClips(short, limits);
    expect(short.duration).toBeLessThan(limits.min);
    expect(clips).toHaveLength(1);
    expect(clips[0]).toMatchObject({
      number: 1,
      start: 0,
      end: short.duration,
      pieces: [{ start: 0, end: short.duration }],
    });
    // With the default limits (shortest clip 30 s), an 11-second recording is still one clip.
    const eleven = makeTranscript(SCRIPT.slice(4, 7));
    expect(eleven.duration).toBeLessThan(30);
    const whole = findClips(eleven, { ...resolveLimits({}), seed: "s" });
    expect(whole).toHaveLength(1);
    expect(whole[0]).toMatchObject({ start: 0, end: eleven.duration });
    // Search mode on it keeps the one clip instead of adding a duplicate.
    // In search mode that one clip is the answer: it comes back marked, with its number and ref.
    expect(findClips(eleven, { ...resolveLimits({}), seed: "s", about: "pricing", existing: whole })).toEqual([
      { ...whole[0], answers: [{ about: "pricing", rank: 0 }] },
    ]);
  });

  it("keeps default clips within 30–150 s and sentence-aligned on a longer episode", () => {
    const long = makeTranscript([...SCRIPT, ...SCRIPT, ...SCRIPT]);
    const clips = findClips(long, { ...resolveLimits({}), seed: "s" });
    expect(clips.length).toBeGreaterThanOrEqual(2);
    for (const c of clips) {
      expect(c.duration).toBeGreaterThanOrEqual(30);
      expect(c.duration).toBeLessThanOrEqual(150);
    }
  });

  it("ranks `about` windows by BM25 over the windows themselves", () => {
    const windows = [
      { words: "the laptop died on stage".split(" ").map((text) => ({ text, start: 0, end: 1 })) },
      { words: "hiking boots on a trail".split(" ").map((text) => ({ text, start: 0, end: 1 })) },
      { words: "laptop laptop laptop backup".split(" ").map((text) => ({ text, start: 0, end: 1 })) },
    ];
    const s = bm25(windows, "laptop backup");
    expect(s[1]).toBe(0);
    expect(s[2]).toBeGreaterThan(s[0]);
    expect(s[0]).toBeGreaterThan(0);
  });

  it("lets `about` change the ranking and adds clips without duplicates", () => {
    const plain = findClips(transcript, limits);
    const about = findClips(transcript, { ...limits, about: "my laptop died during a talk" });
    expect(plain[0].hook).not.toMatch(/laptop/);
    expect(about[0].hook).toMatch(/laptop/);
    expect(about[0].score.reasons[0]).toMatch(/matches the brief: .*laptop/);
    // Search mode keeps the clips found so far and appends new, non-overlapping ones.
    const more = findClips(transcript, {
      ...limits,
      about: "hiking boots on a mountain trail",
      existing: about.slice(0, 1),
    });
    // The listed clip keeps its number and ref; it may be marked as a lesser answer to the new brief.
    expect({ ...more[0], answers: undefined }).toEqual({ ...about[0], answers: undefined });
    expect(more.length).toBeGreaterThan(1);
    expect(more.slice(1).every((c) => !overlaps(c, about[0]) && c.number > 1)).toBe(true);
    expect(more[1].hook).toMatch(/hiking/);
    expect(more.every((c) => c.ref !== about[0].ref || c === more[0])).toBe(true);
  });

  it("cuts long silences and fillers out of the pieces", () => {
    const words: Word[] = [
      { text: "one", start: 0, end: 0.4 },
      { text: "two", start: 0.5, end: 0.9 },
      { text: "three", start: 4, end: 4.4 },
      { text: "um", start: 4.6, end: 5.2 },
      { text: "four", start: 5.6, end: 6 },
    ];
    const pieces = toPieces(words, { start: 0, end: 6.2 });
    expect(pieces).toEqual([
      { start: 0, end: 1.15 },
      { start: 3.8, end: 4.5 },
      { start: 5.52, end: 6.2 },
    ]);
  });

  it("resolves target ±20% and rejects min above max", () => {
    expect(resolveLimits({ target_seconds: 60 })).toMatchObject({ target: 60, min: 48, max: 72 });
    expect(resolveLimits({ target_seconds: 15 })).toMatchObject({ target: 15, min: 12, max: 18 });
    // Without a target: 30–150 s.
    expect(resolveLimits({})).toMatchObject({ target: 60, min: 30, max: 150, count: 10 });
    expect(() => resolveLimits({ min_seconds: 50, max_seconds: 20 })).toThrow(/min_seconds/);
  });
});

describe("find-clips stage", () => {
  let ctx: TestStageCtx | undefined;
  afterEach(async () => ctx?.cleanup());

  it("measures loudness per second with ffmpeg", async () => {
    ctx = await makeStageCtx();
    const levels = await measureLoudness(JFK, { workdir: ctx.workdir });
    expect(levels.length).toBeGreaterThanOrEqual(10);
    expect(levels.length).toBeLessThanOrEqual(12);
    expect(Math.max(...levels)).toBeGreaterThan(-40);
    expect(levels.every((v) => Number.isFinite(v) && v <= 0)).toBe(true);
  });

  it("reads the transcript from storage and writes clips.json", async () => {
    ctx = await makeStageCtx({ target_seconds: 20, count: 3 });
    const transcript = makeTranscript();
    await ctx.storage.write("runs/r/transcript.json", JSON.stringify(transcript));
    const out = await findClipsStage.run(
      {
        transcript: { key: "runs/r/transcript.json", duration: transcript.duration },
        media: { duration: transcript.duration, kind: "audio" },
      },
      ctx,
    );
    expect(out.clips).toHaveLength(3);
    expect(out.clips_key).toBe(`runs/${ctx.runId}/clips.json`);
    const saved = JSON.parse((await ctx.storage.read(out.clips_key)).toString());
    expect(saved.clips).toEqual(out.clips);
    expect(out.engine_used).toBe("heuristic");
    expect(out.fallback_reason).toBeNull();
  });

  it("takes the transcript inline (the transcript JSON itself as input) with stable refs", async () => {
    ctx = await makeStageCtx({ target_seconds: 20, count: 3 });
    const transcript = makeTranscript();
    const a = await findClipsStage.run(transcript, ctx);
    const b = await findClipsStage.run({ transcript }, ctx);
    expect(a.clips).toHaveLength(3);
    expect(b.clips).toEqual(a.clips);
    await expect(findClipsStage.run({ words: [{ text: "hi" }] }, ctx)).rejects.toMatchObject({ code: "bad_input" });
    await expect(findClipsStage.run({}, ctx)).rejects.toMatchObject({ code: "bad_input" });
  });

  it("appends `about` clips to input.clips without overlapping them", async () => {
    ctx = await makeStageCtx({ target_seconds: 20, count: 2 });
    const transcript = makeTranscript();
    const first = await findClipsStage.run(transcript, ctx);
    ctx.options = { target_seconds: 20, count: 2, about: "laptop on stage" };
    const more = await findClipsStage.run({ ...transcript, clips: first.clips }, ctx);
    expect(more.clips.slice(0, first.clips.length)).toEqual(first.clips);
    const added = more.clips.slice(first.clips.length);
    expect(added.length).toBeGreaterThan(0);
    for (const c of added) {
      expect(c.about).toBe("laptop on stage");
      expect(c.hook + c.title).toMatch(/laptop/i);
      expect(first.clips.every((f: any) => !overlaps(f, c) && f.ref !== c.ref)).toBe(true);
    }
    expect(more.clips.map((c: any) => c.number)).toEqual(more.clips.map((_: unknown, i: number) => i + 1));
  });
});
