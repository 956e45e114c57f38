/**
 * Work that follows an episode run for CLI and watch-folder users: rendering its best clips.
 *
 * Their options come in one bag (`--set`, a sidecar), while the work is two pipelines: the
 * episode, then one `clip` run per rendered clip. splitOptions sends each key to the pipeline(s)
 * whose stages take it, so `style: karaoke` or `fit: whole` reach the renders and
 * `target_seconds: 30` the episode, and refuses a key that neither takes, before anything runs.
 */
import { RunError, type Run, type Runner, type StartRunOptions } from "../engine/runner.js";

/** Keys that steer what follows the run rather than a stage. */
export const FOLLOWUP_KEYS = ["render_top"];

/** Refuses a render_top that is not a whole number >= 0 (from --set or a sidecar). */
export function checkRenderTop(top: unknown): void {
  if (top !== undefined && !(Number.isInteger(top) && (top as number) >= 0))
    throw new Error(`render_top must be a whole number >= 0, got ${JSON.stringify(top)}`);
}

/** The pipeline that renders one clip. */
const CLIP_PIPELINE = "clip";

/** Whether runs of this pipeline are followed by clip renders: it finds clips, and `clip` exists. */
export function rendersFollow(runner: Runner, pipeline: string): boolean {
  const steps = runner.pipelines.get(pipeline)?.steps ?? [];
  return runner.pipelines.has(CLIP_PIPELINE) && steps.some((s) => s.stage === "find-clips");
}

const fits = (plan: () => unknown) => {
  try {
    plan();
    return true;
  } catch {
    return false;
  }
};

export interface SplitOptions {
  /** For the run itself. */
  run: Record<string, unknown>;
  /** For each clip render that follows it. */
  renders: Record<string, unknown>;
}

/**
 * Splits options (FOLLOWUP_KEYS already taken out) between a run and its clip renders. A key goes
 * to each pipeline that takes it; one that neither takes, or a value a stage refuses, throws
 * RunError invalid_option naming it.
 */
export function splitOptions(runner: Runner, pipeline: string, set: Record<string, unknown>): SplitOptions {
  const renders = rendersFollow(runner, pipeline);
  const out: SplitOptions = { run: {}, renders: {} };
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(set)) {
    let forRun = runner.takesOption(pipeline, key);
    let forRenders = renders && runner.takesOption(CLIP_PIPELINE, key);
    // One name, two meanings (find-clips' `loudness` is whether to measure, caption-burn's a level in
    // LUFS): a key both take goes where its value fits; one that fits neither goes to both, to be refused.
    if (forRun && forRenders) {
      const fitsRun = fits(() => runner.planFor(pipeline, { [key]: value }));
      const fitsRenders = fits(() => runner.planFor(CLIP_PIPELINE, { [key]: value }));
      if (fitsRun !== fitsRenders) [forRun, forRenders] = [fitsRun, fitsRenders];
    }
    if (forRun) out.run[key] = value;
    if (forRenders) out.renders[key] = value;
    if (!forRun && !forRenders) unknown.push(key);
  }
  if (unknown.length) {
    const where = renders
      ? `pipeline ${pipeline} or of its clip renders (pipeline ${CLIP_PIPELINE})`
      : `pipeline ${pipeline}`;
    throw new RunError("invalid_option", `no step of ${where} takes option(s) ${unknown.join(", ")}`);
  }
  // Values are checked against the stages' schemas now, not when the renders start.
  runner.planFor(pipeline, out.run);
  if (renders) runner.planFor(CLIP_PIPELINE, out.renders);
  return out;
}

/**
 * Starts `clip` runs for the best `count` clips of a finished run; `opts.set` is the renders' share of splitOptions.
 */
export async function startClipRenders(
  runner: Runner,
  episode: Run,
  count: number,
  opts: StartRunOptions = {},
): Promise<string[]> {
  const clips = Array.isArray(episode.output?.clips) ? episode.output.clips : [];
  if (count <= 0 || !clips.length || !runner.pipelines.has(CLIP_PIPELINE)) return [];
  const ids: string[] = [];
  const { clips: _all, _events, ...state } = episode.output;
  for (const clip of clips.slice(0, count)) {
    const run = await runner.startRun(CLIP_PIPELINE, { ...state, clip, episode_run_id: episode.id }, opts);
    ids.push(run.id);
  }
  return ids;
}
