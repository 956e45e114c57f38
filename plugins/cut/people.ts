/**
 * Faces into people (issue 37): sightings on consecutive samples of one scene are chained by
 * position into tracks, and tracks anywhere in the clip are joined into one person when their face
 * descriptors agree and they are never on screen at the same moment. Pure: the samples come from
 * the face finder (faces.ts), the scenes from the scene analysis (focus.ts).
 */
import type { FoundFace } from "./face-child.js";

export interface Sample {
  /** Seconds on the clip's joined timeline. */
  t: number;
  faces: FoundFace[];
}

export interface Sighting extends FoundFace {
  t: number;
}

export interface Person {
  id: number;
  sightings: Sighting[];
}

/** A track may skip this long (missed detections) and still continue. */
const GAP_S = 1.5;
/** face-api's descriptors: two faces closer than this (Euclidean) are the same person; at the low
 * resolution sampled, one face across frames measures 0–0.2 and two different faces 0.4–0.6. */
const SAME_PERSON = 0.35;
/** Detections this unsure are ignored (the detector's own threshold is lower). */
const MIN_SCORE = 0.5;

const dist = (a: number[], b: number[]) => Math.sqrt(a.reduce((s, v, i) => s + (v - (b[i] ?? 0)) ** 2, 0));

function meanDesc(s: Sighting[]): number[] | undefined {
  const d = s.filter((x) => x.desc?.length).map((x) => x.desc!);
  if (!d.length) return undefined;
  return d[0]!.map((_, i) => d.reduce((a, v) => a + v[i]!, 0) / d.length);
}

/** Which scene holds `t` (scenes cover the clip in order). */
export const sceneOf = (scenes: Array<{ start: number; end: number }>, t: number): number => {
  const i = scenes.findIndex((s) => t >= s.start && t < s.end);
  return i < 0 ? scenes.length - 1 : i;
};

/** Tracks within each scene: a face continues the nearest track seen lately, within a face and a bit. */
function tracks(samples: Sample[], scenes: Array<{ start: number; end: number }>): Sighting[][] {
  const all: Array<{ scene: number; s: Sighting[] }> = [];
  for (const sample of samples) {
    const scene = sceneOf(scenes, sample.t);
    const open = all.filter((k) => k.scene === scene && sample.t - k.s.at(-1)!.t <= GAP_S);
    const taken = new Set<number>();
    const faces = sample.faces.filter((f) => f.score >= MIN_SCORE).sort((a, b) => b.score - a.score);
    for (const f of faces) {
      let best = -1;
      let bestD = Number.POSITIVE_INFINITY;
      open.forEach((k, i) => {
        const last = k.s.at(-1)!;
        const d = Math.hypot(last.x - f.x, last.y - f.y);
        if (!taken.has(i) && d < 1.2 * Math.max(last.w, f.w) && d < bestD) [best, bestD] = [i, d];
      });
      const sighting = { ...f, t: sample.t };
      if (best >= 0) {
        taken.add(best);
        open[best]!.s.push(sighting);
      } else all.push({ scene, s: [sighting] });
    }
  }
  // A face seen on one sample only is more likely a false find than a person.
  return all.map((k) => k.s).filter((s) => s.length >= 2);
}

/** People of a clip: tracks joined by descriptor, largest presence first (ids 1, 2, …). */
export function findPeople(samples: Sample[], scenes: Array<{ start: number; end: number }>): Person[] {
  const groups: Array<{ s: Sighting[]; desc?: number[] }> = [];
  for (const track of tracks(samples, scenes).sort((a, b) => b.length - a.length)) {
    const desc = meanDesc(track);
    const times = new Set(track.map((s) => s.t));
    let home: (typeof groups)[number] | undefined;
    let bestD = SAME_PERSON;
    for (const g of groups) {
      if (!desc || !g.desc || g.s.some((s) => times.has(s.t))) continue;
      const d = dist(desc, g.desc);
      if (d < bestD) [home, bestD] = [g, d];
    }
    if (home) {
      home.s.push(...track);
      home.s.sort((a, b) => a.t - b.t);
      home.desc = meanDesc(home.s);
    } else groups.push({ s: track, desc });
  }
  return groups
    .sort((a, b) => b.s.length - a.s.length)
    .map((g, i) => ({ id: i + 1, sightings: g.s.map(({ desc: _d, ...rest }) => rest) }));
}

/** Where a person is at `t` within [from, to): the nearest sighting in time, undefined when none. */
export function whereAt(p: Person, t: number, from: number, to: number): Sighting | undefined {
  let best: Sighting | undefined;
  for (const s of p.sightings) {
    if (s.t < from || s.t >= to) continue;
    if (!best || Math.abs(s.t - t) < Math.abs(best.t - t)) best = s;
  }
  return best;
}
