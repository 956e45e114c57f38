/**
 * A caption style's preview: the style's captions burned on a 9:16 frame of the episode, drawn as
 * real clips are (the same ASS from daemon/render/ass.ts, rendered by libass through ffmpeg's `ass`
 * filter at 1080×1920, then scaled down), with a line the episode itself speaks.
 *
 * The sample words get even, made-up times so that they form one caption, and the picture is
 * taken while the last of them is spoken: every word is on screen then, and an animated style
 * shows its highlight on that word.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { buildAss, type CaptionStyle } from "../render/ass.js";
import type { TranscriptSegment, TranscriptWord } from "../render/captions.js";
import { escapeFilterValue, runFfmpeg, SAFE_INPUT } from "../render/render.js";

export const PREVIEW = { width: 360, height: 640 } as const;
/** The frame captions are laid out on, as caption-burn's output of a 9:16 clip. */
export const FRAME = { width: 1080, height: 1920 } as const;
const WORD_SECONDS = 0.4;
const MAX_WORDS = 6;

/**
 * Up to six words the episode speaks, one sentence's worth: from the segment where `at` falls
 * (the first clip's start), else the first segment with four words or more.
 */
export function sampleWords(t: { words: TranscriptWord[]; segments: TranscriptSegment[] }, at?: number): string[] {
  const words = (seg: TranscriptSegment) =>
    t.words
      .slice(seg.words[0], seg.words[1])
      .map((w) => w.text.trim())
      .filter(Boolean);
  const near = at === undefined ? undefined : t.segments.find((s) => s.end > at && words(s).length >= 3);
  const seg = near ?? t.segments.find((s) => words(s).length >= 4) ?? t.segments.find((s) => words(s).length > 0);
  const all = seg ? words(seg) : t.words.map((w) => w.text.trim()).filter(Boolean);
  const out: string[] = [];
  for (const w of all) {
    out.push(w);
    // A sentence's end would start a new caption.
    if (out.length >= MAX_WORDS || /[.!?…]["'”’)]*$/.test(w)) break;
  }
  return out;
}

/**
 * The preview as PNG bytes (PREVIEW size). `base` is the 9:16 picture (FRAME size) the captions
 * go on; `fontsDir` is render.fonts_dir, as caption-burn uses it.
 */
export async function renderPreview(o: {
  base: Buffer;
  style: CaptionStyle;
  words: string[];
  workdir: string;
  fontsDir?: string;
  signal?: AbortSignal;
}): Promise<Buffer> {
  const words = (o.words.length ? o.words : ["Your", "captions", "look", "like", "this"]).map((text, i) => ({
    text,
    start: i * WORD_SECONDS,
    end: (i + 1) * WORD_SECONDS - 0.02,
  }));
  const duration = words.length * WORD_SECONDS + 1;
  const ass = buildAss(words, {
    ...FRAME,
    style: o.style,
    size: "medium",
    position: "bottom",
    highlight: o.style.animation !== "none",
    duration,
  });
  await writeFile(path.join(o.workdir, "captions.ass"), ass);
  await writeFile(
    path.join(o.workdir, "base.png"),
    await sharp(o.base).resize(FRAME.width, FRAME.height, { fit: "cover" }).png().toBuffer(),
  );
  const fonts = o.fontsDir ? `:fontsdir=${escapeFilterValue(path.resolve(o.fontsDir))}` : "";
  const at = (words.length - 0.5) * WORD_SECONDS;
  await runFfmpeg(
    [
      ...SAFE_INPUT,
      "-loop",
      "1",
      "-framerate",
      "10",
      "-t",
      duration.toFixed(2),
      "-i",
      "base.png",
      "-vf",
      `ass=filename=captions.ass${fonts},scale=${PREVIEW.width}:${PREVIEW.height}:flags=lanczos`,
      "-ss",
      at.toFixed(2),
      "-frames:v",
      "1",
      "-update",
      "1",
      "preview.png",
    ],
    { signal: o.signal, cwd: o.workdir },
  );
  return sharp(path.join(o.workdir, "preview.png")).png({ compressionLevel: 9 }).toBuffer();
}

/** The neutral 9:16 background of an audio-only episode's preview: a dark, quiet gradient. */
export function neutralFrame(): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${FRAME.width}" height="${FRAME.height}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="0.6" y2="1"><stop offset="0" ` +
    `stop-color="#334155"/><stop offset="1" stop-color="#0f172a"/></linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
