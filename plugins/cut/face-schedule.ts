/**
 * Which sampled frames the face finder looks at, and how closely (issue 37's cost). Detection and
 * landmarks cost 25–60 ms a frame on one core, the decode a few: so every sample is decoded, but a
 * frame is detected only when it can tell something new:
 * - the landmarks (the mouth's movement) only decide between speakers: asked while a voice is heard
 *   and more than one face was on screen, and then on every sample, detected (a turn needs a few
 *   openings, and the landmarks read the mouth on the detector's own box, which moves with it);
 * - otherwise, while the picture moves, often enough that a face moves about half its width between
 *   detections (every sample to once in 1.5 s; once a second with no face yet), and once in 1.5 s
 *   while it does not (its tiny grey copy, a glance, barely changes from the last frame detected);
 * - a frame that changed wholesale (a cut) at once, its faces new tracks (`fresh`).
 * The frames between get their faces from the detections either side (fillSkipped). Pure.
 */
import type { FoundFace } from "./face-child.js";
import type { Sample } from "./people.js";
import type { RawFrame } from "./sample.js";

const GLANCE_W = 32;
const GLANCE_H = 18;
/** Mean change of a glance (0..255) from which the picture counts as moved, and as cut. */
export const MOVED = 1.5;
export const CUT = 12;
/** Seconds between detections while the picture holds still, and while it moves with no face in it. */
const STILL_EVERY = 1.5;
const EMPTY_EVERY = 1;
/** While it moves, a face should move no more than this share of its width between detections. */
const STEP_WIDTHS = 0.5;

/** A frame's tiny grey copy: the mean of (R+G)/2 over each block of a 32×18 grid. */
export function glance(f: RawFrame): Uint8Array {
  const out = new Uint8Array(GLANCE_W * GLANCE_H);
  const bw = f.width / GLANCE_W;
  const bh = f.height / GLANCE_H;
  for (let gy = 0; gy < GLANCE_H; gy++)
    for (let gx = 0; gx < GLANCE_W; gx++) {
      let sum = 0;
      let n = 0;
      // Every other pixel of every other row of the block: enough for a mean, a quarter of the reads.
      for (let y = Math.floor(gy * bh); y < Math.floor((gy + 1) * bh); y += 2)
        for (let x = Math.floor(gx * bw); x < Math.floor((gx + 1) * bw); x += 2) {
          const i = (y * f.width + x) * 3;
          sum += f.rgb[i]! + f.rgb[i + 1]!;
          n += 2;
        }
      out[gy * GLANCE_W + gx] = n ? Math.round(sum / n) : 0;
    }
  return out;
}

/** Mean absolute difference of two glances, 0..255. */
export function change(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

export interface Ask {
  detect: boolean;
  marks: boolean;
  fresh: boolean;
}

export class FaceSchedule {
  private last: { t: number; glance: Uint8Array; faces: FoundFace[] } | undefined;
  /** Seconds between detections while the picture moves, from how fast the faces went lately. */
  private moving = 0;

  /** `voiced(t)`: whether a voice is heard at t; `full`: every frame with landmarks (the first version). */
  constructor(
    private voiced: (t: number) => boolean,
    private full = false,
  ) {}

  /** What to ask of the face finder for the frame at `t` with glance `g`. */
  decide(t: number, g: Uint8Array): Ask {
    if (this.full) return { detect: true, marks: true, fresh: false };
    const last = this.last;
    const c = last ? change(g, last.glance) : CUT;
    if (!last || c >= CUT) return { detect: true, marks: this.voiced(t), fresh: true };
    const marks = last.faces.length >= 2 && this.voiced(t);
    const every = c >= MOVED ? this.moving : STILL_EVERY;
    // A little under the interval: samples come at a fixed rate and their clock rounds.
    return { detect: marks || t - last.t >= every - 0.05, marks, fresh: false };
  }

  /** The faces a detected frame held; the next decisions compare against it. */
  seen(t: number, g: Uint8Array, faces: FoundFace[]): void {
    const last = this.last;
    // Face widths a second of the fastest face since the last detection; one that came or went: fast.
    let speed = 0;
    for (const f of faces) {
      const d = Math.min(...(last?.faces ?? []).map((p) => Math.hypot(p.x - f.x, p.y - f.y) / f.w));
      speed = Math.max(speed, last && d < 3 ? d / Math.max(1e-3, t - last.t) : Number.POSITIVE_INFINITY);
    }
    if (last && faces.length < last.faces.length) speed = Number.POSITIVE_INFINITY;
    this.moving = faces.length ? Math.min(STILL_EVERY, STEP_WIDTHS / Math.max(speed, 1e-3)) : EMPTY_EVERY;
    this.last = { t, glance: g, faces };
  }
}

const mix = (a: number, b: number, u: number) => a + (b - a) * u;

/**
 * Faces for the samples not detected (`faces` undefined): each face of the detection before moves
 * toward the same face in the detection after (the nearest, within a face and a bit), else stays.
 * No descriptor or mouth is made up. A gap across a wholesale change keeps the detection before.
 */
export function fillSkipped(samples: Array<{ t: number; faces?: FoundFace[]; fresh?: boolean }>): Sample[] {
  const out: Sample[] = [];
  let before: { t: number; faces: FoundFace[] } | undefined;
  for (const [i, s] of samples.entries()) {
    if (s.faces) {
      before = { t: s.t, faces: s.faces };
      out.push({ t: s.t, faces: s.faces });
      continue;
    }
    const after = samples.slice(i + 1).find((x) => x.faces);
    const faces = (before?.faces ?? []).map(({ desc: _d, mouth: _m, ...f }) => {
      const to =
        after && !after.fresh ? after.faces!.find((g) => Math.hypot(g.x - f.x, g.y - f.y) < 1.2 * f.w) : undefined;
      if (!to || !before || !after) return f;
      const u = (s.t - before.t) / (after.t - before.t);
      return { ...f, x: mix(f.x, to.x, u), y: mix(f.y, to.y, u), w: mix(f.w, to.w, u), h: mix(f.h, to.h, u) };
    });
    out.push({ t: s.t, faces });
  }
  return out;
}
