// Clean captions and brand colours in real renders (caption-burn's one pass through ffmpeg/libass):
// censor mask (the frames show exactly "d***"), bleep (a 1 kHz tone over the word, nowhere else),
// emphasis (a number in the accent colour), and a brand kit's accent and uploaded font.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as fontkit from "fontkit";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { muxTalk } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, ".cache/fixtures");
// Spoken word by word, so each word's time is known exactly; "damn" is on the list.
const SPOKEN = ["So", "we", "sold", "forty", "two", "damn", "tickets", "today."];
const LISTED = 5;
const W = 540;
const H = 960;
type Word = { text: string; start: number; end: number; confidence: number };

const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
const seconds = (file: string) =>
  Number(sh("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]).toString());

function fixture(): { video: string; words: Word[]; duration: number } {
  const dir = path.join(
    CACHE,
    `clean-${createHash("sha1")
      .update(SPOKEN.join(" ") + "v1")
      .digest("hex")
      .slice(0, 10)}`,
  );
  mkdirSync(dir, { recursive: true });
  const gap = path.join(dir, "gap.wav");
  if (!existsSync(gap)) sh("sox", ["-D", "-n", "-r", "22050", "-c", "1", "-b", "16", gap, "trim", "0", "0.15"]);
  const parts = [gap, gap, gap];
  const words: Word[] = [];
  let t = 0.45;
  SPOKEN.forEach((w, i) => {
    const wav = path.join(dir, `w${i}.wav`);
    if (!existsSync(wav)) sh("espeak-ng", ["-v", "en-us", "-s", "150", "-w", wav, w]);
    const len = seconds(wav);
    words.push({ text: w, start: +t.toFixed(3), end: +(t + len).toFixed(3), confidence: 0.9 });
    parts.push(wav, gap);
    t += len + 0.15;
  });
  parts.push(gap, gap, gap, gap);
  const audio = path.join(dir, "speech.wav");
  if (!existsSync(audio)) sh("sox", ["-D", ...parts, audio]);
  const video = muxTalk(audio, path.join(dir, "talk.mp4"), "color=c=0x305070:s=960x540:r=30");
  return { video, words, duration: seconds(video) };
}

/** The frame at `at` as raw RGB of the caption band (the lower part where `bottom` captions sit). */
async function band(file: string, at: number): Promise<Buffer> {
  const png = sh("ffmpeg", [
    "-v",
    "error",
    "-ss",
    at.toFixed(3),
    "-i",
    file,
    "-frames:v",
    "1",
    "-f",
    "image2pipe",
    "-c:v",
    "png",
    "-",
  ]);
  return sharp(png)
    .extract({ left: 0, top: Math.round(H * 0.55), width: W, height: Math.round(H * 0.35) })
    .removeAlpha()
    .raw()
    .toBuffer();
}
const meanDiff = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;
/** Pixels within `tol` (each channel) of a colour. */
function near(px: Buffer, hex: string, tol = 48): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < px.length; i += 3)
    if (Math.abs(px[i]! - r!) <= tol && Math.abs(px[i + 1]! - g!) <= tol && Math.abs(px[i + 2]! - b!) <= tol) n++;
  return n;
}

/** The share of a stretch's power at one frequency (a DFT bin; the stretch is a whole number of periods). */
function toneShare(pcm: Float32Array, rate: number, from: number, to: number, freq = 1000): number {
  const period = rate / freq;
  const n = Math.floor(((to - from) * rate) / period) * period;
  const i0 = Math.round(from * rate);
  let re = 0,
    im = 0,
    total = 0;
  for (let k = 0; k < n; k++) {
    const x = pcm[i0 + k]!;
    re += x * Math.cos((2 * Math.PI * freq * k) / rate);
    im -= x * Math.sin((2 * Math.PI * freq * k) / rate);
    total += x * x;
  }
  return total ? (2 * (re * re + im * im)) / n / total : 0;
}
function pcmOf(file: string): Float32Array {
  const buf = sh("ffmpeg", ["-v", "error", "-i", file, "-vn", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"]);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

describe("clean captions and brand colours", () => {
  let f: ReturnType<typeof fixture>;
  let ctx: TestStageCtx;
  let clip: any;
  const renders = new Map<string, string>();
  const mid = (i: number) => (f.words[i]!.start + f.words[i]!.end) / 2;

  /** caption-burn on the one cut plan with these options (memoised by name), its file. */
  async function render(
    name: string,
    options: Record<string, unknown>,
    input: Record<string, unknown> = {},
  ): Promise<string> {
    if (!renders.has(name)) {
      const out = await captionBurn.run(
        { cut: clip, ...input },
        { ...ctx, runId: `00000000-0000-4000-8000-${String(renders.size).padStart(12, "0")}`, options },
      );
      renders.set(name, ctx.fileOf(out.render.key));
    }
    return renders.get(name)!;
  }

  beforeAll(async () => {
    f = fixture();
    ctx = await makeStageCtx();
    await ctx.storage.putFile("runs/r/source.mp4", f.video);
    await ctx.storage.write(
      "runs/r/transcript.json",
      JSON.stringify({ engine: "test", language: "en", duration: f.duration, words: f.words, segments: [] }),
    );
    const end = Math.floor(f.duration * 100) / 100;
    const out = await cut.run(
      {
        source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
        media: { duration: f.duration, kind: "video", width: 960, height: 540, rotation: 0, has_audio: true },
        transcript: { key: "runs/r/transcript.json", engine: "test", language: "en", duration: f.duration, files: {} },
        clip: { ref: "cc01", number: 1, start: 0, end, pieces: [{ start: 0, end }] },
      },
      { ...ctx, options: { encode: false, width: W, crop_focus: "center" } },
    );
    clip = out.cut;
    expect(clip.render_plan).toBeDefined();
  }, 120_000);
  afterAll(async () => ctx?.cleanup());

  it("masks a listed word in the burned captions: the frames show exactly the masked text", async () => {
    const style = { style: "clean", emphasis: false };
    const plain = await render("plain", style);
    const masked = await render("mask", { ...style, censor: "mask" });
    // The expected text burned the plain way: the same words with "d***" written in them.
    const words = JSON.parse((await ctx.storage.read(clip.words_key)).toString()).words;
    expect(words[LISTED].text).toBe("damn");
    words[LISTED].text = "d***";
    await ctx.storage.write("runs/r/expected.words.json", JSON.stringify({ words }));
    const expected = await render("expected", style, { cut: { ...clip, words_key: "runs/r/expected.words.json" } });
    const at = mid(LISTED);
    const [p, m, e] = await Promise.all([band(plain, at), band(masked, at), band(expected, at)]);
    expect(meanDiff(p, m)).toBeGreaterThan(0.5); // the captions differ from the unmasked ones…
    expect(meanDiff(m, e)).toBeLessThan(meanDiff(p, m) / 10); // …and are the masked text's
    // Elsewhere in the clip (a cue without the word) nothing changes.
    expect(meanDiff(await band(plain, mid(0)), await band(masked, mid(0)))).toBeLessThan(0.2);
  }, 300_000);

  it("bleeps the listed word: a 1 kHz tone over its span, the speech gone there, no tone elsewhere", async () => {
    const bleeped = pcmOf(await render("bleep", { style: "clean", emphasis: false, censor: "bleep" }));
    const plain = pcmOf(await render("plain", { style: "clean", emphasis: false }));
    const w = f.words[LISTED]!;
    const inside = toneShare(bleeped, 48000, w.start + 0.02, w.end - 0.02);
    expect(inside).toBeGreaterThan(0.9);
    expect(toneShare(plain, 48000, w.start + 0.02, w.end - 0.02)).toBeLessThan(0.2);
    for (const i of [0, 2, 3, 6, 7]) {
      const o = f.words[i]!;
      expect(toneShare(bleeped, 48000, o.start, o.end), o.text).toBeLessThan(0.2);
    }
  }, 300_000);

  it("draws a number in the accent colour with emphasis on (the style's highlight), not with it off", async () => {
    const on = await band(await render("emph-on", { style: "clean", emphasis: true }), mid(4));
    const off = await band(await render("plain", { style: "clean", emphasis: false }), mid(4));
    const accent = "#FFD166"; // clean's highlight
    expect(near(on, accent, 40)).toBeGreaterThan(150);
    expect(near(off, accent, 40)).toBeLessThan(10);
  }, 300_000);

  it("takes a brand kit's accent for the spoken word and its uploaded font for the glyphs", async () => {
    const colours = { primary: "#FFFFFF", accent: "#00C8FF", background: "#101820" };
    const kit = { id: "k1", name: "Kit", colours };
    const style = { style: "bold-punch", emphasis: false };
    const at = mid(6); // "tickets", spoken: the active word
    const stock = await band(await render("punch", style), at);
    const branded = await band(await render("brand", style, { brand: kit }), at);
    expect(near(branded, colours.accent)).toBeGreaterThan(150);
    expect(near(stock, colours.accent)).toBeLessThan(10);
    expect(near(stock, "#FFE600")).toBeGreaterThan(150); // bold-punch's own yellow, gone with the kit
    expect(near(branded, "#FFE600")).toBeLessThan(10);

    // An uploaded font under a family name no installed font has: libass can only find it in the
    // folder caption-burn makes from storage, so different glyphs prove that path.
    const ttf = readFileSync("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf");
    const renamed = renameFamily(ttf, "DejaVu Serif", "ClipdT Serif");
    expect((fontkit.create(renamed) as fontkit.Font).familyName).toBe("ClipdT Serif");
    await ctx.storage.write("brand/k1/font.ttf", renamed);
    const font = { key: "brand/k1/font.ttf", family: "ClipdT Serif", file_name: "My Font.ttf" };
    const withFont = await band(await render("brand-font", style, { brand: { ...kit, font } }), at);
    expect(meanDiff(withFont, branded)).toBeGreaterThan(1);
    expect(near(withFont, colours.accent)).toBeGreaterThan(150);
  }, 400_000);
});

/** The font with every name-table spelling (UTF-16BE and single-byte) of one family replaced by another as long. */
function renameFamily(font: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error("same length only");
  const out = Buffer.from(font);
  for (const enc of ["utf16be", "latin1"] as const) {
    const a = enc === "utf16be" ? Buffer.from(from, "utf16le").swap16() : Buffer.from(from, "latin1");
    const b = enc === "utf16be" ? Buffer.from(to, "utf16le").swap16() : Buffer.from(to, "latin1");
    for (let i = out.indexOf(a); i >= 0; i = out.indexOf(a, i + 1)) b.copy(out, i);
  }
  return out;
}
