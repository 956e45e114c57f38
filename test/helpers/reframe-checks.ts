// Measures on rendered frames for the reframe tests and bench/reframe (issue 37): faces found in the
// rendered picture (the same face finder, a descriptor for each face so people can be told apart),
// and the camera's movement between consecutive frames, read from the shift of the picture.
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { CameraPlan } from "../../daemon/render/camera.js";
import { videoCutArgs } from "../../daemon/render/clip-graph.js";
import { runFfmpeg } from "../../daemon/render/render.js";
import { FaceFinder, type FoundFace } from "../../plugins/cut/faces.js";
import { samplePiece } from "../../plugins/cut/sample.js";

/** Renders a whole source through a camera plan at a small size (the checks need no more). */
export async function renderCamera(
  source: string,
  seconds: number,
  camera: CameraPlan,
  size = { width: 360, height: 640 },
): Promise<string> {
  // Beside its source, so whoever removes the fixtures removes the renders too.
  const out = await mkdtemp(path.join(path.dirname(source), "render-")).then((d) => path.join(d, "out.mp4"));
  const args = videoCutArgs(source, [{ start: 0, end: seconds }], {
    ...size,
    fps: 30,
    fit: "crop",
    background: "black",
    hasAudio: true,
    camera,
    loudness: "off",
    preset: "ultrafast",
    output: out,
  });
  await runFfmpeg(args);
  return out;
}

/** Faces in the frames of a video, `rate` a second, each with its descriptor. */
export async function facesOf(
  video: string,
  seconds: number,
  rate = 4,
): Promise<Array<{ t: number; faces: FoundFace[] }>> {
  const finder = new FaceFinder(undefined, { describeAll: true });
  const got: Array<Promise<{ t: number; faces: FoundFace[] }>> = [];
  try {
    await samplePiece(video, { start: 0, end: seconds }, 0.99, undefined, {
      rate,
      max: 10_000,
      width: 360,
      keepEvery: 1e9,
      onFrame: (f) => {
        got.push(
          finder.find({ t: f.t, width: f.width, height: f.height, rgb: f.rgb }).then((faces) => ({ t: f.t, faces })),
        );
        return finder.room();
      },
    });
    return await Promise.all(got);
  } finally {
    await finder.close();
  }
}

/** The descriptor of the one face in a still image. */
export async function descriptorOf(png: string): Promise<number[]> {
  const finder = new FaceFinder(undefined, { describeAll: true });
  try {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const faces = await finder.find({ t: 0, width: info.width, height: info.height, rgb: data });
    if (!faces[0]?.desc) throw new Error(`no face in ${png}`);
    return faces[0].desc;
  } finally {
    await finder.close();
  }
}

export const descDistance = (a: number[], b: number[]) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]!) ** 2, 0));

/**
 * Of the frames from 0.5 s after each turn starts, the share showing the talking person's face whole
 * (told apart by the nearer of the two people's descriptors).
 */
export function speakerShare(
  frames: Array<{ t: number; faces: FoundFace[] }>,
  turns: Array<{ who: "a" | "b"; start: number; end: number }>,
  ref: { a: number[]; b: number[] },
): number {
  const turnAt = (t: number) => turns.find((x) => t >= x.start + 0.5 && t < x.end);
  const judged = frames.filter((f) => turnAt(f.t));
  const right = judged.filter((f) => {
    const who = turnAt(f.t)!.who;
    const other = who === "a" ? "b" : "a";
    return f.faces.some(
      (x) => x.desc && inside(x) && descDistance(x.desc, ref[who]) < descDistance(x.desc, ref[other]),
    );
  });
  return right.length / Math.max(1, judged.length);
}

/** A face wholly inside the frame, off its very edge. */
export const inside = (f: FoundFace, margin = 0.005) =>
  f.x - f.w / 2 >= margin && f.x + f.w / 2 <= 1 - margin && f.y - f.h / 2 >= margin && f.y + f.h / 2 <= 1 - margin;

/**
 * The picture's horizontal shift between consecutive frames (fractions of the width), every frame:
 * each frame's column means against the last one's, the best of shifts up to a tenth of the width.
 * Only the top tenth of the frame is read: the composed videos keep it for the background, so a
 * talking face does not pass for a move.
 */
export async function shifts(video: string, seconds: number): Promise<Array<{ t: number; shift: number }>> {
  const out: Array<{ t: number; shift: number }> = [];
  let prev: Float64Array | undefined;
  await samplePiece(video, { start: 0, end: seconds }, 0.99, undefined, {
    rate: 30,
    max: 100_000,
    width: 180,
    keepEvery: 1e9,
    onFrame: (f) => {
      const cols = new Float64Array(f.width);
      for (let y = 0; y < f.height / 10; y++)
        for (let x = 0; x < f.width; x++) cols[x]! += f.rgb[(y * f.width + x) * 3]! + f.rgb[(y * f.width + x) * 3 + 2]!;
      if (prev) {
        const p = prev;
        let best = 0;
        let bestErr = Number.POSITIVE_INFINITY;
        const lim = Math.round(f.width / 10);
        for (let s = -lim; s <= lim; s++) {
          let err = 0;
          let n = 0;
          for (let x = lim; x < f.width - lim; x++) {
            err += Math.abs(cols[x]! - p[x + s]!);
            n++;
          }
          if (err / n < bestErr - 1e-9) [best, bestErr] = [s, err / n];
        }
        out.push({ t: f.t, shift: Math.abs(best) / f.width });
      }
      prev = cols;
    },
  });
  return out;
}
