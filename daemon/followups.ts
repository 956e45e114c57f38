/** Work that follows an episode run for CLI and watch-folder users: rendering its best clips. */
import type { Run, Runner, StartRunOptions } from "./runner.js";

export async function startClipRenders(runner: Runner, episode: Run, count: number, opts: StartRunOptions = {}): Promise<string[]> {
  const clips = Array.isArray(episode.output?.clips) ? episode.output.clips : [];
  if (count <= 0 || !clips.length || !runner.pipelines.has("clip")) return [];
  const ids: string[] = [];
  const { clips: _all, _events, ...state } = episode.output;
  for (const clip of clips.slice(0, count)) {
    const run = await runner.startRun("clip", { ...state, clip, episode_run_id: episode.id }, { ...opts, set: pickClipOptions(opts.set, runner) });
    ids.push(run.id);
  }
  return ids;
}

/** Only the `set` options that the clip pipeline takes are passed on to it. */
function pickClipOptions(set: Record<string, unknown> | undefined, runner: Runner): Record<string, unknown> | undefined {
  if (!set) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(set)) {
    try {
      runner.planFor("clip", { [k]: v });
      out[k] = v;
    } catch {
      /* not an option of the clip pipeline */
    }
  }
  return out;
}
