/**
 * The episode's waveform: a strip of the source's loudness, one bar per few pixels, which the page
 * lays the clips over. ffmpeg decodes the audio at a low rate (cheap even for hours) and astats
 * gives one RMS level per bucket of samples; sharp draws the bars from an SVG on a transparent
 * background, so the page's own colours show through.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { runFfmpeg, SAFE_INPUT } from "../render/render.js";

export const WAVEFORM = { width: 1200, height: 120, bar: 2, gap: 1 } as const;
const RATE = 8000;
/** Levels below the loudest minus this many dB draw as the thinnest line. */
const RANGE_DB = 45;

/** RMS levels in dB of `buckets` equal stretches of the file (-90 for silence). */
export async function loudnessLevels(
  file: string,
  duration: number,
  buckets: number,
  o: { workdir: string; signal?: AbortSignal },
): Promise<number[]> {
  const per = Math.max(1, Math.ceil((Math.max(duration, 0.01) * RATE) / buckets));
  await runFfmpeg(
    [
      ...SAFE_INPUT,
      "-vn",
      "-i",
      file,
      "-af",
      [
        `aresample=${RATE}`,
        "aformat=channel_layouts=mono",
        `asetnsamples=n=${per}:p=0`,
        "astats=metadata=1:reset=1",
        "ametadata=mode=print:key=lavfi.astats.Overall.RMS_level:file=levels.txt",
      ].join(","),
      "-f",
      "null",
      "-",
    ],
    { signal: o.signal, cwd: o.workdir },
  );
  const text = await readFile(path.join(o.workdir, "levels.txt"), "utf8");
  const levels: number[] = [];
  for (const m of text.matchAll(/RMS_level=(-?[\d.]+|-inf|nan)/g)) {
    if (levels.length >= buckets) break;
    const v = Number(m[1]);
    levels.push(Number.isFinite(v) ? Math.max(-90, v) : -90);
  }
  while (levels.length < buckets) levels.push(-90);
  return levels;
}

/** The strip as PNG bytes: bars centred on the middle line, their height by level. */
export async function drawWaveform(
  levels: number[],
  o: { width?: number; height?: number; colour?: string } = {},
): Promise<Buffer> {
  const W = o.width ?? WAVEFORM.width;
  const H = o.height ?? WAVEFORM.height;
  const step = WAVEFORM.bar + WAVEFORM.gap;
  const loudest = Math.max(...levels, -90);
  const floor = loudest - RANGE_DB;
  const rects = levels.map((db, i) => {
    const k = loudest <= -90 ? 0 : Math.max(0, Math.min(1, (db - floor) / RANGE_DB));
    const h = Math.max(2, Math.round(k * (H - 4)));
    return `<rect x="${i * step}" y="${Math.round((H - h) / 2)}" width="${WAVEFORM.bar}" height="${h}" rx="1"/>`;
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><g ` +
    `fill="${o.colour ?? "#64748b"}">${rects.join("")}</g></svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
}

/** How many bars fill the strip. */
export const WAVEFORM_BARS = Math.floor(WAVEFORM.width / (WAVEFORM.bar + WAVEFORM.gap));
