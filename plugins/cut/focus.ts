/**
 * Where to crop a landscape picture to 9:16: sharp's attention strategy (skin tones, saturation,
 * luminance frequency) on a few small frames sampled across the clip; the median offset wins, so a
 * single odd frame cannot swing the crop. One crop per clip for now (not yet per scene).
 */
import { spawn } from "node:child_process";
import sharp from "sharp";
import { SAFE_INPUT } from "../_render.js";
import type { Piece } from "./clip.js";

function _grab(source: string, at: number, signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("ffmpeg", ["-v", "error", "-nostdin", ...SAFE_INPUT, "-ss", at.toFixed(3), "-i", source, "-frames:v", "1", "-vf", "scale=320:-2", "-f", "image2pipe", "-c:v", "png", "-"], { signal, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && chunks.length ? resolve(Buffer.concat(chunks)) : reject(new Error(`no frame at ${at}s`))));
  });
}

/** The horizontal crop centre as a fraction (0..1) of the free range; 0.5 when it cannot tell. */
export async function attentionFocus(source: string, pieces: Piece[], opts: { signal?: AbortSignal; samples?: number } = {}): Promise<number> {
  const n = opts.samples ?? 3;
  const total = pieces.reduce((a, p) => a + p.end - p.start, 0);
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    // Sample times spread over the joined clip, mapped back into the source.
    let t = (total * (i + 0.5)) / n;
    const piece = pieces.find((p) => (t -= p.end - p.start) < 0) ?? pieces[pieces.length - 1];
    const at = piece.end + t;
    try {
      const png = await _grab(source, Math.max(0, at), opts.signal);
      const meta = await sharp(png).metadata();
      const w = meta.width ?? 0;
      const h = meta.height ?? 0;
      const cropW = Math.round((h * 9) / 16);
      if (cropW >= w || !w) continue;
      const { info } = await sharp(png).resize(cropW, h, { fit: "cover", position: sharp.strategy.attention }).toBuffer({ resolveWithObject: true });
      const left = -((info as { cropOffsetLeft?: number }).cropOffsetLeft ?? -(w - cropW) / 2);
      xs.push(Math.max(0, Math.min(1, left / (w - cropW))));
    } catch (err) {
      if (opts.signal?.aborted) throw err;
    }
  }
  if (!xs.length) return 0.5;
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}
