/**
 * Which picture the poster is made from. A video clip's poster is rendered afresh from the source
 * through the clip's own layout (crop or fit, and the brand's logo) without captions or the hook
 * box, so the poster's title is the only text on it; an audio clip's is the rendered frame at a
 * moment of speech, where the waveform moves and the caption line is whole.
 */
import { cameraAt } from "../../daemon/render/camera.js";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { StageContext } from "../../daemon/engine/stage.js";
import { type CropScene, type RenderPlan, videoCutArgs } from "../../daemon/render/clip-graph.js";
import { planFiles } from "../../daemon/render/clip-render.js";
import { runFfmpeg, SAFE_INPUT } from "../../daemon/render/render.js";

/** A scene shorter than this is a flash between cameras, not a cover. */
const STEADY_SECONDS = 1;

/**
 * `t` on the clip's timeline, moved into the nearest scene that lasts at least a second when the
 * scene at `t` is shorter (half a second into it, or its middle). Unchanged without scenes.
 */
export function steadyMoment(t: number, scenes: CropScene[] | undefined, duration: number): number {
  const list = (scenes ?? []).filter((s) => s.end > s.start);
  if (!list.length) return t;
  const here = list.find((s) => t >= s.start && t < s.end) ?? list[list.length - 1]!;
  if (here.end - here.start >= STEADY_SECONDS) return t;
  const steady = list.filter((s) => Math.min(s.end, duration) - s.start >= STEADY_SECONDS);
  if (!steady.length) return t;
  const gap = (s: CropScene) => (t < s.start ? s.start - t : t - s.end);
  const best = steady.reduce((a, b) => (gap(b) < gap(a) ? b : a));
  return best.start + Math.min(0.5, (Math.min(best.end, duration) - best.start) / 2);
}

/**
 * For an audio clip: the middle of the third word from `t` (the caption line is then whole and the
 * waveform moves with the voice), or of the first when the third is far; `t` without words.
 */
export function spokenMoment(words: Array<{ start: number; end: number }>, t: number, duration: number): number {
  const from = words.findIndex((w) => w.end > t);
  if (from < 0) return t;
  const first = words[from]!;
  const third = words[from + 2];
  const w = third && third.start - first.start < 3 ? third : first;
  return Math.max(0, Math.min((w.start + w.end) / 2, duration - 0.1));
}

/** Where `t` on the joined clip falls in the source, by the plan's pieces. */
function sourceTime(pieces: Array<{ start: number; end: number }>, t: number): number {
  let acc = 0;
  for (const p of pieces) {
    const len = p.end - p.start;
    if (t < acc + len) return p.start + Math.max(0, t - acc);
    acc += len;
  }
  const last = pieces[pieces.length - 1];
  return last ? Math.max(last.start, last.end - 0.1) : t;
}

/** The clean picture at clip time `t` (no captions, no hook box; the logo where the kit has one), as PNG. */
export async function cleanFrame(ctx: StageContext<unknown>, plan: RenderPlan, t: number, png: string): Promise<void> {
  const files = await planFiles(ctx, plan);
  const at = sourceTime(plan.pieces, t);
  const scene = plan.crop_plan?.find((s) => t >= s.start && t < s.end);
  const tmp = path.join(ctx.workdir, "poster-frame.mp4");
  const args = videoCutArgs(files.source, [{ start: at, end: at + 2 / plan.fps }], {
    width: plan.width,
    height: plan.height,
    fps: plan.fps,
    fit: plan.layout === "audio" ? "pad" : plan.layout,
    background: plan.colour,
    hasAudio: false,
    focus: scene ? { x: scene.x, y: scene.y } : plan.focus,
    // The camera where it stands at `t`, held: the poster's frames start there.
    camera: plan.camera ? cameraAt(plan.camera, t) : undefined,
    brand: plan.brand ? { ...plan.brand, intro: undefined, outro: undefined } : undefined,
    brandFiles: files.brand,
    loudness: "off",
    output: tmp,
  });
  try {
    await runFfmpeg(args, { signal: ctx.signal, cwd: ctx.workdir });
    await runFfmpeg([...SAFE_INPUT, "-i", tmp, "-map", "0:v:0", "-frames:v", "1", "-update", "1", png], {
      signal: ctx.signal,
      cwd: ctx.workdir,
    });
  } finally {
    await rm(tmp, { force: true });
  }
}
