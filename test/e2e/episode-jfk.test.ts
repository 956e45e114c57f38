// End to end: `clipd run episode test/fixtures/media/jfk.wav --out X` through the built CLI, with the
// real recogniser and renderer. Checks the transcript files (and measures their word error rate),
// clips.json, and the rendered clip: its streams, its length, and that its frames carry captions,
// by comparing them with the same frames of the uncaptioned cut made by `clipd stage cut`.
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import webvtt from "webvtt-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wordErrorRate } from "../fixtures/episodes.js";
import { fixtureMedia } from "../helpers/media.js";
import { bandDiffs, clipd, e2eEnv, ffprobe, grayFrame, parseSrt, readJson, type E2eEnv } from "./_e2e.js";
import { DEFAULT_PRESET, profileOfPreset } from "../../daemon/render/render.js";

const { WebVTTParser } = webvtt;
const JFK = fixtureMedia("jfk.wav");
const JFK_TEXT =
  "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
/**
 * pocketsphinx (Debian's en-us model, the offline default here) scores 12 errors in 22 words on
 * this recording (WER 0.545, measured 2026-11-22). The bound leaves a little room for tuning but
 * catches a broken decoder, a wrong sample rate or a stitching bug (all of which push it to ~1).
 */
const MAX_WER = 0.65;

describe("e2e: clipd run episode jfk.wav", () => {
  let e: E2eEnv;
  let out: string;
  let seconds = 0;

  beforeAll(async () => {
    e = await e2eEnv({ render: { render_top: 1 } });
    out = path.join(e.dir, "out");
    ({ seconds } = await clipd(["run", "episode", JFK, "--out", out], e, 240_000));
    console.log(`e2e jfk: clipd run episode took ${seconds.toFixed(1)} s`);
  }, 300_000);

  afterAll(async () => {
    if (e) await rm(e.dir, { recursive: true, force: true });
  });

  it("writes the transcript as TXT, SRT and VTT, and reports its word error rate", async () => {
    const files = await readdir(out);
    expect(files).toEqual(
      expect.arrayContaining([
        "transcript.txt",
        "transcript.srt",
        "transcript.vtt",
        "transcript.json",
        "clips.json",
        "run.json",
      ]),
    );
    const txt = await readFile(path.join(out, "transcript.txt"), "utf8");
    const { wer, errors, words } = wordErrorRate(JFK_TEXT, txt);
    console.log(
      `e2e jfk: WER ${wer.toFixed(3)} (${errors} errors in ${words} words); transcript: ` +
        `${txt.replace(/\s+/g, " ").trim()}`,
    );
    expect(wer).toBeLessThanOrEqual(MAX_WER);

    const t = await readJson(path.join(out, "transcript.json"));
    expect(t.engine).toBe("pocketsphinx");
    expect(t.duration).toBeCloseTo(11, 1);
    expect(t.words.length).toBeGreaterThan(10);
    for (let i = 0; i < t.words.length; i++) {
      const w = t.words[i];
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(w.end).toBeLessThanOrEqual(t.duration + 1e-6);
      if (i) expect(w.start).toBeGreaterThanOrEqual(t.words[i - 1].start);
    }

    const srt = parseSrt(await readFile(path.join(out, "transcript.srt"), "utf8"));
    expect(srt.length).toBeGreaterThan(0);
    srt.forEach((c, i) => {
      expect(c.index).toBe(i + 1);
      expect(c.end).toBeGreaterThan(c.start);
      if (i) expect(c.start).toBeGreaterThanOrEqual(srt[i - 1]!.end);
    });
    const vtt = new WebVTTParser().parse(await readFile(path.join(out, "transcript.vtt"), "utf8"), "metadata");
    expect(vtt.errors).toEqual([]);
    expect(vtt.cues.map((c) => [c.startTime, c.endTime])).toEqual(srt.map((c) => [c.start, c.end]));
    // Every transcribed word reaches the captions, in order.
    const norm = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);
    expect(norm(srt.map((c) => c.text).join(" "))).toEqual(norm(t.words.map((w: any) => w.text).join(" ")));
  });

  it("finds one clip spanning the whole recording (shorter than the shortest clip) and renders it", async () => {
    const doc = await readJson(path.join(out, "clips.json"));
    expect(doc.clips).toHaveLength(1);
    const clip = doc.clips[0];
    expect(clip).toMatchObject({ number: 1, start: 0, end: 11 });
    expect(clip.ref).toMatch(/^c[0-9a-f]{3,}$/);
    expect(clip.title.length).toBeGreaterThan(0);
    const run = await readJson(path.join(out, "run.json"));
    expect(run.state).toBe("succeeded");
    expect(run.clips_rendered).toEqual([expect.objectContaining({ state: "succeeded", clip: 1 })]);
    expect(run.events.map((x: any) => x.type)).toEqual(["episode.ready", "clip.ready"]);
    const mp4s = (await readdir(out)).filter((f) => f.endsWith(".mp4"));
    expect(mp4s).toEqual([`clip-01-${clip.ref}.mp4`]);
    expect((await readdir(out)).includes(`clip-01-${clip.ref}.jpg`)).toBe(true);
  });

  it("renders a 1080×1920 H.264 / AAC MP4 of the clip's length", async () => {
    const { clips } = await readJson(path.join(out, "clips.json"));
    const p = await ffprobe(path.join(out, `clip-01-${clips[0].ref}.mp4`));
    expect(p).toMatchObject({
      width: 1080,
      height: 1920,
      videoCodec: "h264",
      videoProfile: profileOfPreset(DEFAULT_PRESET),
      pixFmt: "yuv420p",
      audioCodec: "aac",
      faststart: true,
    });
    expect(Math.abs(p.duration - clips[0].duration)).toBeLessThanOrEqual(0.15);
  });

  it("shows captions: the caption area differs from the uncaptioned cut while a word is spoken", async () => {
    const run = await readJson(path.join(out, "run.json"));
    const { clips } = await readJson(path.join(out, "clips.json"));
    const clip = clips[0];
    // The same cut the clip pipeline made, without captions: `clipd stage cut` on the same input.
    const storage = path.join(e.dataDir, "storage");
    await mkdir(path.join(storage, "e2e"), { recursive: true });
    await copyFile(JFK, path.join(storage, "e2e", "jfk.wav"));
    await copyFile(path.join(out, "transcript.json"), path.join(storage, "e2e", "transcript.json"));
    const input = path.join(e.dir, "cut-input.json");
    await writeFile(
      input,
      JSON.stringify({
        source: { key: "e2e/jfk.wav" },
        media: run.output.media,
        transcript: { key: "e2e/transcript.json" },
        clip,
      }),
    );
    const { output } = await clipd(["stage", "cut", "--input", input], e, 120_000);
    const cutKey: string = JSON.parse(output.slice(output.indexOf("{"))).cut.key;
    const plain = path.join(storage, cutKey);
    const captioned = path.join(out, `clip-01-${clip.ref}.mp4`);

    // A time inside the longest stretch of speech, where a caption must be on screen.
    const t = await readJson(path.join(out, "transcript.json"));
    const seg = [...t.segments].sort((a: any, b: any) => b.end - b.start - (a.end - a.start))[0];
    const at = (seg.start + seg.end) / 2;
    const diffs = bandDiffs(await grayFrame(captioned, at), await grayFrame(plain, at), 16);
    console.log(
      `e2e jfk: caption-area difference per band at ${at.toFixed(2)} s: ${diffs.map((d) => d.toFixed(1)).join(" ")}`,
    );
    const peak = diffs.indexOf(Math.max(...diffs));
    // Captions (default position: bottom) change the lower half of the picture clearly…
    expect(diffs[peak]).toBeGreaterThan(8);
    expect(peak).toBeGreaterThanOrEqual(8);
    // …while the top of the frame (no hook title by default) is the same picture, re-encoded.
    expect(Math.max(...diffs.slice(0, 4))).toBeLessThan(3);
  }, 180_000);
});
