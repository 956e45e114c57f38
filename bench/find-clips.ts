/**
 * bench/find-clips: does the clip finder pick what a person would post, and does a brief find its moment?
 *
 * Runs the find-clips stage itself (its run(), as a pipeline step does, on the inline transcript) over
 * the labelled episodes in test/fixtures/labelled/*.json, and prints the tuning half (`split: tune`,
 * per episode) apart from the held-out half (`split: heldout`, its average only: a scorer is judged
 * on episodes it was not tuned on, and nobody reads their rows to tune it). Each episode has 2–4
 * labelled strong moments, decoys that share their keywords, a sponsor read, and three briefs naming
 * the moment they should find. Per episode and averaged over the set, at the top 5 and with the
 * default limits (30–150 s):
 * hit rate, precision@5, decoys@5, clips on sentence boundaries, and brief accuracy two ways:
 * - **API**: the brief searched with the clips already found passed as `input.clips`, as
 *   `POST /episodes/{id}/search` runs it; the answer is chosen by answerOf below;
 * - **fresh**: the brief searched on the episode alone; the answer is chosen the same way.
 * The matching rules are in bench/_find-clips-measure.ts. Chance sits beside each measure: random clips
 * with the engine's count and lengths, averaged over 200 seeded draws.
 * Cost: the heuristic alone over a 60-minute recording (tuning episodes end to end), wall time and
 * the process's peak memory.
 * The llm engine runs too when config (CLIPD_CONFIG or env) sets an llm/openai endpoint; else it is skipped.
 * Episodes are shared among worker threads, one per core (BENCH_WORKERS=1 runs them in one thread).
 *
 *   npm run build && node dist/bench/find-clips.js [--json]
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import pino from "pino";
import { loadConfig } from "../config/loader.js";
import type { StageContext } from "../daemon/engine/stage.js";
import { defineLocalStorage } from "../daemon/storage/storage.js";
import { findClips, type Clip } from "../plugins/find-clips/heuristic.js";
import findClipsStage, { resolveLimits, type FindClipsOptions } from "../plugins/find-clips/index.js";
import { llmSettings } from "../plugins/find-clips/llm.js";
import {
  average,
  briefAccuracy,
  chance,
  measureTop,
  scoreClips,
  longRecording,
  splitSet,
  TOP,
  type Labelled,
  type Measures,
  type Score,
} from "./_find-clips-measure.js";

export * from "./_find-clips-measure.js";
import { loadLabelled } from "./_find-clips-measure.js";

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

/**
 * The clip a search answers a brief with: the best-ranked clip marked as answering it (`answers`,
 * which a clip already on the list can carry), else the first made for it (`about`), else the first
 * clip not on the list before (engines that mark neither).
 */
export function answerOf(returned: Clip[], existing: Clip[], about: string): Clip | undefined {
  const rankOf = (c: Clip) =>
    (c as { answers?: Array<{ about: string; rank: number }> }).answers?.find((a) => a.about === about)?.rank;
  const marked = returned.filter((c) => rankOf(c) !== undefined).sort((a, b) => rankOf(a)! - rankOf(b)!);
  const before = new Set(existing.map((c) => c.ref));
  return marked[0] ?? returned.find((c) => c.about === about) ?? returned.find((c) => !before.has(c.ref));
}

export interface EpisodeResult {
  name: string;
  minutes: number;
  moments: number;
  measures: Measures;
  chance: Measures;
  ms: number;
  top: Array<{ start: number; end: number; score: number; title: string; hook: string }>;
}

export async function runEngine(
  set: Labelled[],
  run: Runner,
  options: FindClipsOptions = {},
): Promise<EpisodeResult[]> {
  const out: EpisodeResult[] = [];
  for (const t of set) {
    const t0 = performance.now();
    const clips = await run(t, options);
    const ms = performance.now() - t0;
    const briefs = t.briefs ?? [];
    const api: Array<Clip | undefined> = [];
    const fresh: Array<Clip | undefined> = [];
    for (const b of briefs) {
      api.push(answerOf(await run(t, { ...options, about: b.about }, clips), clips, b.about));
      fresh.push(answerOf(await run(t, { ...options, about: b.about }), [], b.about));
    }
    const measures = { ...measureTop(clips, t), briefApi: briefAccuracy(t, api), briefFresh: briefAccuracy(t, fresh) };
    const lengths = clips.slice(0, TOP).map((c) => c.end - c.start);
    const chanceLevel = chance(
      t,
      lengths,
      fresh.map((c) => (c ? c.end - c.start : undefined)),
    );
    const top = clips
      .slice(0, TOP)
      .map((c) => ({ start: c.start, end: c.end, score: c.score.value, title: c.title, hook: c.hook }));
    out.push({
      name: t.name,
      minutes: t.duration / 60,
      moments: t.labels.length,
      measures,
      chance: chanceLevel,
      ms,
      top,
    });
  }
  return out;
}

const f2 = (v: number | null) => (v === null ? "–" : v.toFixed(2));
const cell = (v: number | null, c: number | null) => `${f2(v)} (${f2(c)})`;

/**
 * The measures as a table: one row per episode and their average, or (`aggregateOnly`, for the
 * held-out half) the average alone, so nobody tunes on a held-out episode's own result.
 */
export function table(rows: EpisodeResult[], aggregateOnly = false): string {
  const head =
    "| episodes | min | moments | hit rate | precision@5 | decoys@5 | boundaries | brief API | brief fresh | ms |\n" +
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  const measures = ["hit", "precision", "decoys", "boundaries", "briefApi", "briefFresh"] as const;
  const line = (name: string, min: string, moments: string, m: Measures, c: Measures, ms: string) =>
    `| ${name} | ${min} | ${moments} | ${measures.map((k) => cell(m[k], c[k])).join(" | ")} | ${ms} |`;
  const body = aggregateOnly
    ? []
    : rows.map((r) => line(r.name, r.minutes.toFixed(1), String(r.moments), r.measures, r.chance, r.ms.toFixed(0)));
  const avg = line(
    `**average of ${rows.length}**`,
    "",
    String(rows.reduce((a, r) => a + r.moments, 0)),
    average(rows.map((r) => r.measures)),
    average(rows.map((r) => r.chance)),
    "",
  );
  return [head, ...body, avg].join("\n");
}

/** Cost: the heuristic over one long recording, in this thread, with its wall time and peak memory. */
export function measureCost(set: Labelled[], minutes = 60): { minutes: number; seconds: number; peakMiB: number } {
  const long = longRecording(set, minutes);
  const t0 = performance.now();
  findClips(long, { ...resolveLimits({}), seed: "cost", duration: long.duration });
  const seconds = (performance.now() - t0) / 1000;
  // maxRSS is in KiB: the peak of the whole process, the bench's own set included.
  return { minutes: long.duration / 60, seconds, peakMiB: process.resourceUsage().maxRSS / 1024 };
}

interface Job {
  names: string[];
  engine: "heuristic" | "llm";
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  config: Record<string, any>;
}

/** One thread's share: its episodes with one engine, run one after another. */
async function runJob(job: Job): Promise<EpisodeResult[]> {
  const runner = await stageRunner(job.config);
  try {
    return await runEngine(
      loadLabelled().filter((t) => job.names.includes(t.name)),
      runner.run,
      { engine: job.engine },
    );
  } finally {
    await runner.close();
  }
}

/** Deals the episodes, longest first, among worker threads and puts the results back in set order. */
// biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
async function runSet(set: Labelled[], engine: Job["engine"], config: Record<string, any>): Promise<EpisodeResult[]> {
  const threads = Math.max(1, Math.min(set.length, Number(process.env.BENCH_WORKERS) || os.availableParallelism()));
  const shares: string[][] = Array.from({ length: threads }, () => []);
  [...set].sort((a, b) => b.words.length - a.words.length).forEach((t, i) => shares[i % threads]!.push(t.name));
  const results = await Promise.all(
    shares.map((names) =>
      threads === 1
        ? runJob({ names, engine, config })
        : new Promise<EpisodeResult[]>((resolve, reject) => {
            const w = new Worker(fileURLToPath(import.meta.url), {
              workerData: { benchFindClips: { names, engine, config } },
            });
            w.once("message", resolve);
            w.once("error", reject);
          }),
    ),
  );
  const byName = new Map(results.flat().map((r) => [r.name, r]));
  return set.map((t) => byName.get(t.name)!);
}

async function main() {
  const json = process.argv.includes("--json");
  const set = loadLabelled();
  const halves = splitSet(set);
  const t0 = performance.now();
  const engines: Record<string, EpisodeResult[] | string> = {};
  engines.heuristic = await runSet(set, "heuristic", {});
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  let config: Record<string, any> = {};
  try {
    config = loadConfig();
  } catch {}
  if (llmSettings(config)) engines.llm = await runSet(set, "llm", JSON.parse(JSON.stringify(config)));
  else engines.llm = "skipped: no llm/openai endpoint in config";
  const seconds = (performance.now() - t0) / 1000;
  const cost = measureCost(halves.tune.length ? halves.tune : set);
  const env = {
    episodes: set.length,
    tune: halves.tune.length,
    heldout: halves.heldout.length,
    cores: os.availableParallelism(),
    node: process.versions.node,
    seconds: Math.round(seconds * 10) / 10,
    date: new Date().toISOString().slice(0, 10),
    cost: {
      minutes: Math.round(cost.minutes),
      seconds: Math.round(cost.seconds * 100) / 100,
      peak_mib: Math.round(cost.peakMiB),
    },
  };
  const half = (v: EpisodeResult[], names: Set<string>) => v.filter((r) => names.has(r.name));
  const tuneNames = new Set(halves.tune.map((t) => t.name));
  const heldNames = new Set(halves.heldout.map((t) => t.name));
  if (json) {
    const summary = Object.fromEntries(
      Object.entries(engines).map(([k, v]) => {
        if (typeof v === "string") return [k, v];
        const agg = (rows: EpisodeResult[]) => ({
          average: average(rows.map((r) => r.measures)),
          chance: average(rows.map((r) => r.chance)),
        });
        const tune = half(v, tuneNames);
        // Held-out episodes are reported only together: no per-episode rows to tune on.
        return [k, { tune: { ...agg(tune), episodes: tune }, heldout: agg(half(v, heldNames)) }];
      }),
    );
    console.log(JSON.stringify({ ...env, engines: summary }, null, 2));
    return;
  }
  console.log(
    `find-clips on ${set.length} labelled episodes (${halves.tune.length} tune, ${halves.heldout.length} held out), ` +
      `top ${TOP}, defaults (30–150 s); ${env.cores} cores, Node ${env.node}, ${env.date}`,
  );
  console.log("Each cell: measured (chance: random clips with the same count and lengths, 200 draws).\n");
  for (const [k, v] of Object.entries(engines)) {
    if (typeof v === "string") {
      console.log(`### ${k}\n\n${v}\n`);
      continue;
    }
    console.log(`### ${k}: tuning half\n\n${table(half(v, tuneNames))}\n`);
    if (heldNames.size) console.log(`### ${k}: held-out half (aggregate only)\n\n${table(half(v, heldNames), true)}\n`);
  }
  console.log(
    `cost: a ${env.cost.minutes}-minute recording searched in ${cost.seconds.toFixed(2)} s ` +
      `(heuristic, one thread), peak memory ${env.cost.peak_mib} MiB`,
  );
  console.log(`${seconds.toFixed(1)} s in all`);
}

if (!isMainThread && workerData?.benchFindClips)
  parentPort!.postMessage(await runJob(workerData.benchFindClips as Job));
else if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  await main();
