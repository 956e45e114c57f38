/**
 * The camera plan of a clip (issue 37), made from the same decode as the scene analysis: each piece
 * is sampled a few times a second at 480 pixels wide (sample.ts); the frames that can tell something
 * new (face-schedule.ts) go to the face finder's child process (faces.ts) while the scenes are cut and
 * their saliency crops found (focus.ts), and the sound's levels are read first (voice.ts: the
 * schedule asks for the mouth only while a voice is heard). Then faces become people (people.ts),
 * people get turns (speaker.ts) and the turns a camera path (camera-plan.ts).
 *
 * The saliency scenes come back too: the fallback when the face finder cannot run, and the crop of
 * every scene without a face.
 */
import type { CameraPlan, LayoutChoice } from "../../daemon/render/camera.js";
import type { Piece } from "./clip.js";
import { FaceFinder, type FoundFace } from "./faces.js";
import { FaceSchedule, fillSkipped, glance } from "./face-schedule.js";
import { mergeScenes, type PlanOptions, sceneCrops, type CropScene } from "./focus.js";
import { findPeople } from "./people.js";
import { sceneTurns } from "./speaker.js";
import { clipVoice, voiceActive } from "./voice.js";
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
  /** Frames sampled, and of them those the face finder looked at. */
  frames: number;
  detected?: number;
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
  /** `full`: the first version's cost (every sample detected with landmarks): bench/reframe compares. */
  opts: PlanOptions & { layout?: LayoutChoice; full?: boolean } = {},
): Promise<Reframed> {
  const finder = new FaceFinder(opts.signal, { full: opts.full });
  const found: Array<Promise<{ t: number; faces?: FoundFace[]; fresh?: boolean }>> = [];
  const moves: Array<{ t: number; m: number; d: number }> = [];
  let aspect = 16 / 9;
  let prev: RawFrame | undefined;
  const hearing = clipVoice(source, pieces, opts.signal);
  let schedule: FaceSchedule | undefined;
  // Each decision reads the detection before it: at most one frame is in the child at a time.
  let lastDetection: Promise<unknown> = Promise.resolve();
  let detected = 0;
  try {
    const [raw, voice] = await Promise.all([
      sceneCrops(source, pieces, {
        ...opts,
        sample: (_i, offset) => ({
          rate: FACE_RATE,
          max: 400,
          width: FACE_WIDTH,
          keepEvery: FACE_RATE,
          ...(opts.full ? {} : { sceneWidth: 320 }),
          onFrame: async (f) => {
            const t = offset + f.t;
            aspect = f.width / f.height;
            if (prev) moves.push({ t, m: motion(prev, f), d: detail(f) });
            prev = f;
            if (!schedule) {
              const v = await hearing;
              schedule = new FaceSchedule((at) => !v || voiceActive(v, at), opts.full);
            }
            const s = schedule;
            const g = glance(f);
            await lastDetection;
            const ask = s.decide(t, g);
            if (!ask.detect) return void found.push(Promise.resolve({ t }));
            detected++;
            const { marks, fresh } = ask;
            const faces = finder
              .find({ t, width: f.width, height: f.height, rgb: f.rgb, marks, fresh })
              .catch(() => [] as FoundFace[])
              .then((x) => {
                s.seen(t, g, x);
                return { t, faces: x, fresh };
              });
            lastDetection = faces;
            found.push(faces);
          },
        }),
      }),
      hearing,
    ]);
    const samples = fillSkipped(await Promise.all(found));
    for (const d of finder.late) {
      const face = samples.find((x) => x.t === d.t)?.faces.find((x) => x.x === d.x && x.y === d.y);
      if (face) face.desc = d.desc;
    }
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
    return { scenes: mergeScenes(raw, opts.tolerance ?? 0.05), camera, frames: samples.length, detected };
  } finally {
    await finder.close();
  }
}
