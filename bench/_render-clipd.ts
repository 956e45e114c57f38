/**
 * clipd's side of bench/render: a pipeline's steps run in-process, in the order and with the
 * `with:` options its YAML gives (pipelines/clip.yaml, restyle.yaml), each output merged into the
 * run state as the runner does. Reading the YAML, not naming stages, keeps the bench measuring
 * whatever the `clip` pipeline renders with today. Notify steps are left out (no work to time).
 */
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { configDefaults } from "../config/loader.js";
import { loadPipelines, type Pipeline } from "../daemon/engine/pipelines.js";
import type { StageContext, StageDefinition } from "../daemon/engine/stage.js";
import { BUILTIN_STAGES } from "../daemon/boot/stages.js";
import type { Storage } from "../daemon/storage/storage.js";
import type { Source } from "./_render-source.js";

const STAGES = new Map<string, StageDefinition>(BUILTIN_STAGES.map((s) => [s.name, s]));

export function loadBenchPipelines(root: string): Map<string, Pipeline> {
  const { pipelines, issues } = loadPipelines({
    dirs: [path.join(root, "pipelines")],
    stages: STAGES,
    defaults: { retry: {}, timeout: "30m" },
  });
  if (issues.length) throw new Error(`pipelines: ${issues.map((i) => `${i.file}:${i.line} ${i.message}`).join("; ")}`);
  return pipelines;
}

/** The preset of a pipeline's last step that takes one (its `with:`, defaults filled in when loaded). */
export function finalPreset(p: Pipeline): string {
  const step = p.steps.filter((s) => typeof s.with.preset === "string").at(-1);
  if (!step) throw new Error(`pipeline ${p.name}: no step has a preset`);
  return step.with.preset as string;
}

/**
 * CPU seconds of this process's finished children (user + system; /proc/self/stat cutime and
 * cstime in clock ticks of 1/100 s): what the ffmpeg processes of a render cost, whatever the load.
 */
export function childCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100; // fields 16 and 17, counted from the state (field 3)
}

export interface StepTime {
  stage: string;
  seconds: number;
}

/**
 * Runs `pipeline`'s steps on `state` (mutated: each step's output merged in). `set` adds options to
 * every step whose stage takes them, as a request's options do.
 */
export async function runPipeline(
  p: Pipeline,
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  state: Record<string, any>,
  o: { storage: Storage; workdir: string; runId: string; set?: Record<string, unknown> },
): Promise<StepTime[]> {
  const times: StepTime[] = [];
  for (const [i, step] of p.steps.entries()) {
    if (step.stage === "notify") continue;
    const stage = STAGES.get(step.stage);
    if (!stage) throw new Error(`pipeline ${p.name}: unknown stage ${step.stage}`);
    const takes = Object.keys((stage.options as { properties?: object }).properties ?? {});
    const extra = Object.fromEntries(Object.entries(o.set ?? {}).filter(([k]) => takes.includes(k)));
    const workdir = path.join(o.workdir, `${o.runId}-${i}-${step.stage}`);
    await mkdir(workdir, { recursive: true });
    // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    const ctx: StageContext<any> = {
      signal: new AbortController().signal,
      log: pino({ level: "silent" }),
      workdir,
      storage: o.storage,
      progress: () => {},
      runId: o.runId,
      stepId: `${i}`,
      pipeline: p.name,
      options: { ...step.with, ...extra },
      config: configDefaults(),
    };
    const t = performance.now();
    Object.assign(state, await stage.run(state, ctx));
    times.push({ stage: step.stage, seconds: (performance.now() - t) / 1000 });
  }
  return times;
}

/** The run state a `clip` run starts with: the source in storage, its probe and transcript, one clip. */
export async function clipState(
  storage: Storage,
  src: Source,
  seconds: number,
  tag: string,
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
): Promise<Record<string, any>> {
  const key = `runs/${tag}/source.mp4`;
  if (!(await storage.exists(key))) await storage.putFile(key, src.video);
  const tKey = `runs/${tag}/transcript.json`;
  await storage.write(
    tKey,
    JSON.stringify({ engine: "bench", language: "en", duration: src.seconds, words: src.words, segments: [] }),
  );
  const clip = {
    ref: "bench",
    number: 1,
    title: "Why captions matter",
    start: 0,
    end: seconds,
    pieces: [{ start: 0, end: seconds }],
  };
  return {
    source: { key, name: "source.mp4", bytes: 1 },
    media: { duration: src.seconds, kind: "video", width: 1920, height: 1080, rotation: 0, has_audio: true },
    transcript: { key: tKey, engine: "bench", language: "en", duration: src.seconds, files: {} },
    clips: [clip],
    clip,
  };
}
