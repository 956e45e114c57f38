/**
 * The virtual camera operator (issue 37): from the scenes, the people and who talks when, a path
 * the camera follows (daemon/render/camera.ts). Pure.
 *
 * Rules, for the narrowest shape (9:16), so every wider one is at least as safe:
 * - a dead zone: the camera stays while its subject is within a fifth of the window of its centre;
 * - moves are eased and no faster than a fifth of the window a second (bench/reframe: the frame
 *   moves under 2 % of its width between frames); a jump only at a scene cut or a change of speaker;
 * - the subject is the speaker; when nobody can be told, everyone who fits in the window, else the
 *   last speaker (or the most seen person); with no face, the scene's saliency crop.
 * Layouts: `whole` for a clip that is mostly faceless and still (a screen share, slides), `split`
 * for one mostly showing two people too far apart for one window, `follow` otherwise.
 */
import {
  type CameraKey,
  type CameraPlan,
  type Layout,
  type LayoutChoice,
  cropRect,
} from "../../daemon/render/camera.js";
import type { CropScene } from "../../daemon/render/clip-layout.js";
import { type Person, whereAt } from "./people.js";
import type { Turn } from "./speaker.js";

/** The narrowest shape the plan is made for. */
const NARROW = 9 / 16;
const DEAD_ZONE = 0.2;
const SPEED = 0.2;
const MIN_MOVE_S = 0.8;
/** A split half spans this many face heights of the source. */
const SPLIT_CLOSE = 3;
/** The plan is made offline: it may look this far ahead before moving. */
const LOOK_AHEAD = 1.5;

export interface PlanScene extends CropScene {
  /** Mean change between consecutive samples (0..255); a screen share barely moves. */
  motion: number;
  /** Share of pixels on a sharp edge: a slide has some, a flat colour or a soft picture none. */
  detail: number;
  turns: Turn[];
}

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

export function planCamera(o: {
  scenes: PlanScene[];
  people: Person[];
  times: number[];
  asked: LayoutChoice;
  sourceAspect: number;
}): CameraPlan {
  const { scenes, people, sourceAspect } = o;
  const win = cropRect({ x: 0.5, y: 0.5 }, NARROW, sourceAspect);
  const inScene = (s: PlanScene) =>
    people.filter((p) => p.sightings.filter((x) => x.t >= s.start && x.t < s.end).length >= 2);
  const total = scenes.reduce((a, s) => a + s.end - s.start, 0) || 1;
  const share = (f: (s: PlanScene) => boolean) => scenes.filter(f).reduce((a, s) => a + s.end - s.start, 0) / total;
  const apart = (s: PlanScene) => {
    const xs = inScene(s).map((p) => whereAt(p, (s.start + s.end) / 2, s.start, s.end)!);
    if (xs.length < 2) return false;
    const lo = Math.min(...xs.map((f) => f.x - f.w / 2));
    const hi = Math.max(...xs.map((f) => f.x + f.w / 2));
    return hi - lo > win.w * 0.9;
  };
  const faceless = share((s) => !inScene(s).length);
  // A screen share: no face, nearly no movement, and the sharp edges of text or slide furniture.
  const still = share((s) => !inScene(s).length && s.motion < 1 && s.detail >= 0.001);
  let layout: Layout = o.asked === "auto" ? "follow" : o.asked;
  if (o.asked === "auto" && faceless >= 0.6 && still >= 0.5) layout = "whole";
  else if (o.asked === "auto" && share(apart) >= 0.5) layout = "split";
  if (layout === "split" && people.length < 2) layout = "follow";
  const speaks = (id: number) =>
    scenes.reduce((a, s) => a + s.turns.filter((t) => t.person === id).reduce((b, t) => b + t.end - t.start, 0), 0);
  const persons = people.map((p) => {
    const mid = p.sightings[Math.floor(p.sightings.length / 2)]!;
    return {
      id: p.id,
      x: r4(mid.x),
      y: r4(mid.y),
      w: r4(mid.w),
      h: r4(mid.h),
      seen: p.sightings.length,
      speaks: r4(speaks(p.id)),
    };
  });
  const paths: CameraKey[][] = [];
  const zoom: number[] = [];
  if (layout === "follow") paths.push(followPath(o, win));
  if (layout === "split") {
    const two = people.slice(0, 2).sort((a, b) => a.sightings[0]!.x - b.sightings[0]!.x);
    for (const p of two) {
      paths.push(
        steady(
          o.times.map((t) => ({ t, at: personAt(p, t) })),
          scenes,
          win,
        ),
      );
      // Each half closes in on its person: their face a third of the half's height.
      const faceH = median(p.sightings.map((s) => s.h));
      zoom.push(r4(Math.min(1, Math.max(0.25, SPLIT_CLOSE * faceH))));
    }
  }
  return {
    version: 1,
    asked: o.asked,
    layout,
    paths,
    ...(zoom.length ? { zoom } : {}),
    persons,
    scenes: scenes.map((s) => ({
      start: s.start,
      end: s.end,
      persons: inScene(s).map((p) => p.id),
      turns: s.turns,
    })),
    source_aspect: r4(sourceAspect),
  };
}

type Win = { w: number; h: number };
type Aim = { x: number; y: number; who: string } | undefined;

/** Where a person is at `t` (their nearest sighting in the same second), for split halves. */
function personAt(p: Person, t: number): Aim {
  const s = whereAt(p, t, t - 0.5, t + 0.5);
  return s ? { x: s.x, y: s.y, who: `p${p.id}` } : undefined;
}

/** The follow layout's aim at each sample: the speaker, else everyone who fits, else the last one. */
function followPath(o: Parameters<typeof planCamera>[0], win: Win): CameraKey[] {
  const aims: Array<{ t: number; at: Aim }> = [];
  let last: number | undefined;
  for (const t of o.times) {
    const s = o.scenes.find((x) => t >= x.start && t < x.end) ?? o.scenes.at(-1)!;
    const here = o.people
      .map((p) => ({ p, f: whereAt(p, t, Math.max(s.start, t - 0.5), Math.min(s.end, t + 0.5)) }))
      .filter((x) => x.f);
    if (!here.length) {
      aims.push({ t, at: undefined });
      continue;
    }
    const turn = s.turns.find((x) => t >= x.start && t < x.end);
    let pick = here.find((x) => x.p.id === turn?.person);
    if (!pick && here.length === 1) pick = here[0];
    if (!pick) {
      const lo = Math.min(...here.map((x) => x.f!.x - x.f!.w / 2));
      const hi = Math.max(...here.map((x) => x.f!.x + x.f!.w / 2));
      if (hi - lo < win.w * 0.9) {
        const y = here.reduce((a, x) => a + x.f!.y, 0) / here.length;
        aims.push({ t, at: { x: (lo + hi) / 2, y, who: "all" } });
        continue;
      }
      pick = here.find((x) => x.p.id === last) ?? here.sort((a, b) => b.p.sightings.length - a.p.sightings.length)[0];
    }
    last = pick!.p.id;
    aims.push({ t, at: { x: pick!.f!.x, y: pick!.f!.y, who: `p${last}` } });
  }
  return steady(aims, o.scenes, win);
}

/** Aims into a steady path: dead zone, eased moves under the speed limit, jumps at cuts and new subjects. */
function steady(aims: Array<{ t: number; at: Aim }>, scenes: PlanScene[], win: Win): CameraKey[] {
  const keys: CameraKey[] = [];
  for (const s of scenes) {
    const inside = smoothed(aims.filter((a) => a.t >= s.start && a.t < s.end));
    // A faceless scene keeps the saliency crop (its x, y are fractions of the narrow window's free range).
    const salient = { x: win.w / 2 + s.x * (1 - win.w), y: 0.4 * win.h + s.y * (1 - win.h), who: "" };
    // The scene opens where its first subject settles (a face coming in is framed where it stops).
    const lead = inside.find((a) => a.at)?.at;
    const early = inside.filter((a) => a.at && a.at.who === lead?.who && a.t < inside.find((b) => b.at)!.t + 3);
    const first = lead
      ? { ...lead, x: median(early.map((a) => a.at!.x)), y: median(early.map((a) => a.at!.y)) }
      : salient;
    let cam = { x: first.x, y: first.y };
    let who = first.who;
    keys.push({ t: s.start, ...cam, ...(keys.length ? { cut: true } : {}) });
    let busyUntil = s.start;
    for (const a of inside) {
      if (!a.at || a.t < busyUntil) continue;
      if (a.at.who !== who && who.startsWith("p") && a.at.who.startsWith("p") && a.t > s.start + 0.05) {
        // A new speaker: cut to them, as an editor would. To or from the group the camera moves.
        cam = { x: a.at.x, y: a.at.y };
        who = a.at.who;
        keys.push({ t: a.t, ...cam, cut: true });
        continue;
      }
      const dx = a.at.x - cam.x;
      const dy = a.at.y - cam.y;
      const held = (p: { x: number; y: number }) =>
        Math.abs(p.x - cam.x) <= DEAD_ZONE * win.w && Math.abs(p.y - cam.y) <= DEAD_ZONE * win.h;
      if (held(a.at)) continue;
      // A subject coming back into the dead zone within LOOK_AHEAD (a face walking in) is waited for.
      if (inside.some((b) => b.at?.who === who && b.t > a.t && b.t <= a.t + LOOK_AHEAD && held(b.at))) continue;
      who = a.at.who;
      const dur = Math.max(MIN_MOVE_S, Math.abs(dx) / (SPEED * win.w), Math.abs(dy) / (SPEED * win.h));
      // A move the scene is too short for goes only as far as it can at the same speed.
      const part = Math.min(1, (s.end - a.t) / dur);
      if (part * dur < 0.3) continue;
      keys.push({ t: a.t, ...cam });
      cam = { x: cam.x + dx * part, y: cam.y + dy * part };
      keys.push({ t: a.t + dur * part, ...cam });
      busyUntil = a.t + dur * part;
    }
  }
  return keys.map((k) => ({ ...k, t: r4(k.t), x: r4(k.x), y: r4(k.y) }));
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0.5;

/** Each aim as the median of the same subject's aims within 0.7 s either side: one odd find moves nothing. */
function smoothed(aims: Array<{ t: number; at: Aim }>): Array<{ t: number; at: Aim }> {
  return aims.map((a) => {
    if (!a.at) return a;
    const near = aims.filter((b) => b.at?.who === a.at!.who && Math.abs(b.t - a.t) <= 0.7).map((b) => b.at!);
    return { t: a.t, at: { who: a.at.who, x: median(near.map((b) => b.x)), y: median(near.map((b) => b.y)) } };
  });
}
