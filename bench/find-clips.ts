/**
 * bench/find-clips: does the clip finder pick what a person would post, for any writer's episodes?
 *
 * Measured by leaving one writer out (bench/_find-clips-lowo.ts) over five writers: the four folders
 * of the corpus written by others (kept in test/fixtures/corpus/find-clips) and the
 * project's own labelled set (test/fixtures/labelled). Each writer is measured with an engine fitted
 * on the other four only; per writer, and the mean of the four corpus writers, at the top 5 with the
 * default limits (30–150 s), by the corpus's own rules (score.py, ported in _find-clips-judge.ts):
 * hit rate, precision@5, decoys, boundaries, and briefs searched with the clips already found, as
 * `POST /episodes/{id}/search` runs them, read in the engine's answer order. Chance sits beside each
 * (random clips with the engine's count and lengths, 200 seeded draws), and punctuated episodes are
 * reported apart from raw engine text (unpunctuated, and 20–35 % of words misheard).
 * Cost: a 60-minute recording searched end to end and one brief on it, wall time and peak memory.
 *
 *   npm run build && node dist/bench/find-clips.js [--json] [--shipped]
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pino from "pino";
import type { StageContext } from "../daemon/engine/stage.js";
import { defineLocalStorage } from "../daemon/storage/storage.js";
import { findClips, prepare, type Clip } from "../plugins/find-clips/heuristic.js";
import findClipsStage, { resolveLimits, type FindClipsOptions } from "../plugins/find-clips/index.js";
import { loadLabelled, longRecording, scoreClips, type Labelled, type Score } from "./_find-clips-measure.js";
import { loadWriters, withForeign, type Episode } from "./_find-clips-corpus.js";
import { embedEpisodes, fitBrief } from "./_find-clips-brief.js";
import { embedAhead } from "../plugins/find-clips/sentence-model.js";
import { isShow, textOf } from "../plugins/find-clips/brief-features.js";
import { finderWith, fit } from "./_find-clips-fit.js";
import { corpusMean, leaveOneWriterOut, lowoTable, type Finder } from "./_find-clips-lowo.js";

export * from "./_find-clips-measure.js";
export { answerOf } from "./_find-clips-lowo.js";

/** The heuristic alone, synchronously (kept for quick checks and the older unit test). */
export function runOne(t: Labelled, options: FindClipsOptions): { clips: Clip[]; score: Score; ms: number } {
  const t0 = performance.now();
  const clips = findClips(t, { ...resolveLimits(options), seed: t.name, duration: t.duration });
  return { clips, score: scoreClips(clips, t.labels), ms: performance.now() - t0 };
}

type Runner = (t: Labelled, options: FindClipsOptions, existing?: Clip[]) => Promise<Clip[]>;

/** Runs the stage as a pipeline step would, with a real temp storage and a silent log. */
export async function stageRunner(
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  config: Record<string, any> = {},
): Promise<{ run: Runner; close: () => Promise<void> }> {
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-clips-"));
  const storage = defineLocalStorage(path.join(base, "storage"));
  let n = 0;
  const run: Runner = async (t, options, existing) => {
    // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    const ctx: StageContext<any> = {
      signal: new AbortController().signal,
      log: pino({ level: "silent" }),
      progress: () => {},
      workdir: base,
      storage,
      runId: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
      stepId: "0",
      pipeline: "bench",
      options: { loudness: false, ...options },
      config,
    };
    const input = existing ? { ...t, clips: existing } : t;
    // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    return ((await findClipsStage.run(input as any, ctx)) as { clips: Clip[] }).clips;
  };
  return { run, close: () => rm(base, { recursive: true, force: true }) };
}

/** The shipped engine (its fitted ranker) on an episode, or on a brief with the clips already listed. */
export function shippedFinder(): Finder {
  const limits = resolveLimits({});
  return (e: Episode, about?: string, existing?: Clip[]) =>
    findClips({ words: e.words }, { ...limits, seed: e.id, duration: e.duration, about, existing });
}

/** Cost: one long recording searched end to end, then one brief on it, in this thread, and peak memory. */
export async function measureCost(set: Labelled[], minutes = 60) {
  const long = longRecording(set, minutes);
  const opts = { ...resolveLimits({}), seed: "cost", duration: long.duration };
  let t0 = performance.now();
  const clips = findClips(long, opts);
  const seconds = (performance.now() - t0) / 1000;
  t0 = performance.now();
  // A brief as the stage answers it: the episode's sentences embedded (the first brief on it), then scored.
  const about = "why the price went up after the storm";
  const p = prepare(long, opts);
  await embedAhead([about, ...p.sentences.filter((s) => !isShow(s)).map(textOf)], () => {});
  findClips(long, { ...opts, about, existing: clips }, p);
  const briefSeconds = (performance.now() - t0) / 1000;
  // maxRSS is in KiB: the peak of the whole process, the bench's own set included.
  return { minutes: long.duration / 60, seconds, briefSeconds, peakMiB: process.resourceUsage().maxRSS / 1024 };
}

async function main() {
  const json = process.argv.includes("--json");
  const all = withForeign(loadWriters());
  // Cost first, so the peak memory is the engine's on one long recording, not the bench's caches.
  const cost = await measureCost(loadLabelled());
  const t0 = performance.now();
  // --shipped: the hand-set weights, as before the ranker was fitted (nothing is fitted per writer).
  const handSet = process.argv.includes("--shipped");
  const embedded = await embedEpisodes(all);
  const rows = leaveOneWriterOut(all, (train) => {
    if (handSet) return finderWith(null);
    const ranker = fit(train);
    return finderWith(ranker, fitBrief(train, ranker));
  });
  const seconds = (performance.now() - t0) / 1000;
  const env = {
    episodes: all.length,
    writers: [...new Set(all.map((e) => e.writer))],
    cores: os.availableParallelism(),
    node: process.versions.node,
    seconds: Math.round(seconds),
    date: new Date().toISOString().slice(0, 10),
    cost,
    sentenceModel: embedded,
  };
  if (json) return void console.log(JSON.stringify({ ...env, mean: corpusMean(rows), episodes: rows }, null, 2));
  console.log(
    `find-clips (${handSet ? "hand-set weights" : "ranker fitted without the writer measured"}), leaving one ` +
      `writer out: ${all.length} episodes by ${env.writers.length} writers, top 5, ` +
      `defaults (30–150 s); ${env.cores} cores, Node ${env.node}, ${env.date}; ` +
      `sentence model ${embedded ? "loaded" : "not loaded"}; load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log("Each cell: measured (chance: random clips with the same count and lengths, 200 draws).");
  console.log("foreign refused: briefs of the next episode asked of this one that got no answer.\n");
  console.log(`${lowoTable(rows)}\n`);
  console.log(
    `cost: a ${Math.round(cost.minutes)}-minute recording searched in ${cost.seconds.toFixed(2)} s, a brief on it ` +
      `in ${cost.briefSeconds.toFixed(2)} s (one thread), peak memory ${Math.round(cost.peakMiB)} MiB`,
  );
  console.log(`${seconds.toFixed(0)} s for the measure`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
