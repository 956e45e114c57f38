/**
 * The camera plan of a clip (issue 37), made from the same decode as the scene analysis: each piece
 * is sampled a few times a second at 480 pixels wide (sample.ts); every frame goes to the face
 * finder's child process (faces.ts) while the scenes are cut and their saliency crops found
 * (focus.ts), and the sound's levels are read beside it (voice.ts). Then faces become people
 * (people.ts), people get turns (speaker.ts) and the turns a camera path (camera-plan.ts).
 *
 * The saliency scenes come back too: the fallback when the face finder cannot run, and the crop of
 * every scene without a face.
 */
import type { CameraPlan, LayoutChoice } from "../../daemon/render/camera.js";
import type { Piece } from "./clip.js";
import { FaceFinder, type FoundFace } from "./faces.js";
import { mergeScenes, type PlanOptions, sceneCrops, type CropScene } from "./focus.js";
import { findPeople, type Sample } from "./people.js";
import { sceneTurns } from "./speaker.js";
import { clipVoice } from "./voice.js";
import { planCamera, type PlanScene } from "./camera-plan.js";
import type { RawFrame } from "./sample.js";

/** Samples a second for the faces (the mouth's movement needs a few per turn), and the decode's width. */
export const FACE_RATE = 3;
export const FACE_WIDTH = 480;

export interface Reframed {
  scenes: CropScene[];
  camera?: CameraPlan;
  /** Why there is no camera plan, when there is none. */
  note?: string;
  /** Frames the face finder looked at. */
  frames: number;
}

/** Mean absolute change of a coarse grey grid between two frames of the same size, 0..255. */
function motion(a: RawFrame, b: RawFrame): number {
  if (a.width !== b.width || a.height !== b.height) return 255;
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.rgb.length; i += 3 * 17) {
    sum += Math.abs(a.rgb[i]! + a.rgb[i + 1]! - b.rgb[i]! - b.rgb[i + 1]!) / 2;
    n++;
  }
  return n ? sum / n : 0;
}

/** Share of sampled pixels on a sharp edge (text, slide furniture); a flat picture has none. */
function detail(f: RawFrame): number {
  let n = 0;
  let edges = 0;
  for (let i = 0; i + 5 < f.rgb.length; i += 3 * 7) {
    if ((i / 3) % f.width === f.width - 1) continue;
    n++;
    if (Math.abs(f.rgb[i]! + f.rgb[i + 1]! - f.rgb[i + 3]! - f.rgb[i + 4]!) / 2 > 24) edges++;
  }
  return n ? edges / n : 0;
}

export async function reframe(
  source: string,
  pieces: Piece[],
  opts: PlanOptions & { layout?: LayoutChoice } = {},
): Promise<Reframed> {
  const finder = new FaceFinder(opts.signal);
  const found: Array<Promise<Sample>> = [];
  const moves: Array<{ t: number; m: number; d: number }> = [];
  let aspect = 16 / 9;
  let prev: RawFrame | undefined;
  try {
    const [raw, voice] = await Promise.all([
      sceneCrops(source, pieces, {
        ...opts,
        sample: (_i, offset) => ({
          rate: FACE_RATE,
          max: 400,
          width: FACE_WIDTH,
          keepEvery: FACE_RATE,
          onFrame: (f) => {
            const t = offset + f.t;
            aspect = f.width / f.height;
            if (prev) moves.push({ t, m: motion(prev, f), d: detail(f) });
            prev = f;
            const faces = finder
              .find({ t, width: f.width, height: f.height, rgb: f.rgb })
              .catch(() => [] as FoundFace[]);
            found.push(faces.then((x) => ({ t, faces: x })));
            return finder.room();
          },
        }),
      }),
      clipVoice(source, pieces, opts.signal),
    ]);
    const samples = await Promise.all(found);
    const scenes = mergeScenes(raw, 0);
    if (!samples.length) return { scenes: mergeScenes(raw, opts.tolerance ?? 0.05), note: "no frames", frames: 0 };
    const people = findPeople(samples, raw);
    const times = samples.map((s) => s.t);
    const planScenes: PlanScene[] = scenes.map((s) => {
      const m = moves.filter((x) => x.t > s.start + 0.2 && x.t < s.end);
      const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
      return {
        ...s,
        motion: mean(m.map((x) => x.m)),
        detail: mean(m.map((x) => x.d)),
        turns: sceneTurns(people, voice, s, times),
      };
    });
    const camera = planCamera({
      scenes: planScenes,
      people,
      times,
      asked: opts.layout ?? "auto",
      sourceAspect: aspect,
    });
    return { scenes: mergeScenes(raw, opts.tolerance ?? 0.05), camera, frames: samples.length };
  } finally {
    await finder.close();
  }
}
