// Pictures of a rendered case for docs/screenshots/: its frames, its poster and (for what is heard
// rather than seen: stereo, pace) its sound, side by side in one PNG a reader can look at.
import { execFileSync } from "node:child_process";
import path from "node:path";
import sharp from "sharp";
import { REPO_ROOT } from "./media.js";

/** The sound of `file` as a picture, one band per channel (left above right). */
export function soundOf(file: string, width = 540, height = 300): Buffer {
  return execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-i",
      file,
      "-filter_complex",
      `[0:a:0]aformat=channel_layouts=stereo,showwavespic=s=${width}x${height}:split_channels=1:colors=#ffd400|#38bdf8`,
      "-frames:v",
      "1",
      "-f",
      "image2pipe",
      "-c:v",
      "png",
      "-",
    ],
    { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
  );
}

/** Panels (PNG or JPEG bytes) scaled to one height, left to right on a dark strip; written as <name>.png. */
export async function gallery(name: string, panels: Buffer[], height = 480): Promise<string> {
  const gap = 12;
  const scaled = await Promise.all(
    panels.map(async (p) => {
      const { data, info } = await sharp(p).resize({ height }).png().toBuffer({ resolveWithObject: true });
      return { data, width: info.width };
    }),
  );
  const width = scaled.reduce((a, s) => a + s.width, 0) + gap * (scaled.length + 1);
  let left = gap;
  const layers = scaled.map((s) => {
    const at = { input: s.data, left, top: gap };
    left += s.width + gap;
    return at;
  });
  const file = path.join(REPO_ROOT, "docs", "screenshots", `${name}.png`);
  await sharp({ create: { width, height: height + 2 * gap, channels: 3, background: "#111827" } })
    .composite(layers)
    .png({ compressionLevel: 9 })
    .toFile(file);
  return file;
}
