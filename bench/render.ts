/**
 * bench/render: clipd's clip render beside bare ffmpeg doing the same one-pass graph, in one run.
 *
 * Source: bench/_render-source.ts (60 s 1920×1080, four scenes, speech, timed words; cached).
 * - clipd: the steps of pipelines/clip.yaml in-process (bench/_render-clipd.ts), 1080×1920 with
 *   word-highlight captions and the hook title, on a top clip whose crop plan the episode
 *   pipeline's plan-crops step made first (timed apart); then a restyle (pipelines/restyle.yaml,
 *   another style); and once on a clip without a plan (the analysis inside the render).
 * - bare: one ffmpeg with input seeking, a per-scene crop, scale, libass from the ASS clipd wrote, the
 *   BT.709 conversion, and the shipped preset at CRF 20 under the same VBV ceiling, after the same
 *   loudness-measuring pass (bench/_render-bare.ts). Best of BENCH_ROUNDS rounds, alternated.
 * - presets: the bare graph over the first BENCH_SWEEP_SECONDS per x264 preset at one bitrate budget
 *   (BENCH_BUDGET_KBPS, an eighth of the ceiling) under the ceiling: wall, CPU, size, profile and SSIM
 *   against preset slow at CRF 16; the choice is the fastest (least CPU) preset writing High within
 *   0.005 of veryfast's SSIM.
 * - encode: the final encode by rate and distortion (bench/_render-encode.ts): bytes, SSIM and CPU
 *   seconds of the old encode, bare ffmpeg at veryfast CRF 20 and clipd's, on clean, noisy and grainy
 *   content; runs without the main part.
 * - threads: the same excerpt at the shipped preset with ffmpeg's thread defaults and clipd's flags.
 * - concurrency: 1, 2 and 3 clip renders (BENCH_CONC_SECONDS long) at once: wall and clips per minute.
 * The last line is `render: <clipd ÷ bare>× bare ffmpeg, <clipd wall ÷ clip length>× clip length`.
 *
 *   npm run build && node dist/bench/render.js
 *
 * Knobs: BENCH_PARTS (comma list of main, presets, encode, threads, concurrency; default all), BENCH_ROUNDS
 * (2), BENCH_SECONDS (60, the main part's clip), BENCH_SWEEP_SECONDS (20, presets, encode and threads),
 * BENCH_CONC_SECONDS (20, clips at once), BENCH_ENCODE_CONTENTS (only the encode contents naming it).
 */
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AAC_HEADROOM_DB, DEFAULT_LOUDNESS } from "../daemon/render/loudness.js";
import { DEFAULT_CRF, DEFAULT_PRESET, PEAK_KBPS_1080x1920 } from "../daemon/render/render.js";
import { defineLocalStorage, type Storage } from "../daemon/storage/storage.js";
import { runBare, ssim } from "./_render-bare.js";
import { childCpuSeconds, clipState, finalPreset, loadBenchPipelines, runPipeline } from "./_render-clipd.js";
import { FPS, makeSource, type Source } from "./_render-source.js";
import { encodePart } from "./_render-encode.js";
import { presetsPart, threadsPart } from "./_render-sweeps.js";

const SOURCE_SECONDS = 60;
/** The main part's clip: the whole source by default; shorter (BENCH_SECONDS) on a loaded machine. */
const SECONDS = Math.min(SOURCE_SECONDS, Number(process.env.BENCH_SECONDS ?? SOURCE_SECONDS));
const PARTS = new Set((process.env.BENCH_PARTS ?? "main,presets,encode,threads,concurrency").split(","));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const SWEEP = Number(process.env.BENCH_SWEEP_SECONDS ?? 20);
const CONC = Number(process.env.BENCH_CONC_SECONDS ?? 20);
const RESTYLE = { style: "karaoke" };
/** clipd's default loudness and the AAC headroom its limiter keeps: bare ffmpeg makes the same two passes. */
const LOUDNESS = { ...DEFAULT_LOUDNESS, headroom: AAC_HEADROOM_DB };

function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const f2 = (v: number) => v.toFixed(2);
const best = (xs: number[]) => Math.min(...xs);
const sweepEnv = (env: Env) => ({ base: env.base, video: env.src.video, preset: env.preset });

interface Env {
  root: string;
  base: string;
  storage: Storage;
  src: Source;
  pipelines: ReturnType<typeof loadBenchPipelines>;
  /** The preset of the clip pipeline's final encode (its YAML and the stage's default); bare ffmpeg uses the same. */
  preset: string;
  ass?: string;
}

/**
 * One clip render through the clip pipeline; wall seconds, the state it left and the per-stage
 * times. `planned`: first the episode pipeline's `plan-crops` step (as it runs before a top clip
 * is rendered), timed apart as `plan`; the render then starts encoding at once.
 */
async function clipdRender(env: Env, tag: string, seconds: number, planned = true) {
  const state = await clipState(env.storage, env.src, seconds, tag);
  let plan = 0;
  if (planned) {
    const episode = env.pipelines.get("episode")!;
    const t0 = performance.now();
    await runPipeline({ ...episode, steps: episode.steps.filter((s) => s.stage === "plan-crops") }, state, {
      storage: env.storage,
      workdir: env.base,
      runId: `${tag}-plan`,
    });
    plan = (performance.now() - t0) / 1000;
    if (!state.clips[0]?.crop_plan) throw new Error("plan-crops left the clip without a crop plan");
    state.clip = state.clips[0];
  }
  const cpu0 = childCpuSeconds();
  const t = performance.now();
  const steps = await runPipeline(env.pipelines.get("clip")!, state, {
    storage: env.storage,
    workdir: env.base,
    runId: tag,
  });
  return { wall: (performance.now() - t) / 1000, cpu: childCpuSeconds() - cpu0, state, steps, plan };
}

async function mainPart(env: Env) {
  const clipd: number[] = [];
  const bare: number[] = [];
  const restyle: number[] = [];
  const clipdCpu: number[] = [];
  const bareCpu: number[] = [];
  const plans: number[] = [];
  let stages = "";
  let files = { clipd: 0, bare: 0, ssim: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    const c = await clipdRender(env, `main${r}`, SECONDS);
    clipdCpu.push(c.cpu);
    plans.push(c.plan);
    if (!clipd.length || c.wall < best(clipd)) stages = c.steps.map((s) => `${s.stage} ${f2(s.seconds)} s`).join(", ");
    clipd.push(c.wall);
    const assKey: string | undefined = c.state.render?.ass_key;
    if (!assKey) throw new Error("the clip pipeline's render has no ass_key: the bare graph needs its captions");
    env.ass = path.join(env.base, "captions.ass");
    await writeFile(env.ass, await env.storage.read(assKey));
    const b = await runBare({
      source: env.src.video,
      pieces: [{ start: 0, end: SECONDS }],
      ass: "captions.ass",
      cwd: env.base,
      output: path.join(env.base, "bare.mp4"),
      preset: env.preset,
      crf: DEFAULT_CRF,
      peakKbps: PEAK_KBPS_1080x1920,
      loudness: LOUDNESS,
    });
    bare.push(b.wall);
    bareCpu.push(b.cpu);
    // The files themselves: the same settings should give the same bytes and picture.
    const clipdFile = path.join(env.base, "clipd.mp4");
    await writeFile(clipdFile, await env.storage.read(c.state.render.key));
    files = {
      clipd: (await stat(clipdFile)).size,
      bare: (await stat(path.join(env.base, "bare.mp4"))).size,
      ssim: await ssim(clipdFile, path.join(env.base, "bare.mp4")),
    };
    const t = performance.now();
    await runPipeline(env.pipelines.get("restyle")!, c.state, {
      storage: env.storage,
      workdir: env.base,
      runId: `restyle${r}`,
      set: RESTYLE,
    });
    restyle.push((performance.now() - t) / 1000);
  }
  // One render of a clip without a plan (not a top clip, or reshaped): the analysis is in the render.
  const cold = await clipdRender(env, "cold", SECONDS, false);
  const frames = SECONDS * FPS;
  console.log(
    `\n#### Render of a ${SECONDS} s clip (best of ${ROUNDS}, alternated; preset ` +
      `${env.preset} as clipd's final encode, CRF ${DEFAULT_CRF}); load ${load()}\n`,
  );
  console.log("| what | wall s | fps | RTF (wall ÷ clip) | ÷ bare |");
  console.log("|---|---:|---:|---:|---:|");
  const row = (what: string, s: number) =>
    console.log(
      `| ${what} | ${f2(s)} | ${(frames / s).toFixed(1)} | ${(s / SECONDS).toFixed(3)} | ${f2(s / best(bare))} |`,
    );
  row("bare ffmpeg, one pass", best(bare));
  row(`clipd \`clip\` pipeline (${stages})`, best(clipd));
  row(`clipd restyle (${RESTYLE.style})`, best(restyle));
  row(
    `clipd \`clip\` pipeline, no crop plan (${cold.steps.map((s) => `${s.stage} ${f2(s.seconds)} s`).join(", ")}; ` +
      "one round)",
    cold.wall,
  );
  console.log(
    `\nThe top clips' crop plans (plan-crops, in the episode pipeline before ` +
      `the render): ${f2(best(plans))} s per ${SECONDS} s clip.`,
  );
  console.log(
    `All rounds: clipd ${clipd.map(f2).join(", ")} s; bare ${bare.map(f2).join(", ")} ` +
      `s; restyle ${restyle.map(f2).join(", ")} s.`,
  );
  const paired = clipd.map((c, i) => c / bare[i]!).sort((a, b) => a - b);
  console.log(
    `Paired ratios (each clipd round ÷ the bare round right after it, which ` +
      `shares its load): ${paired.map(f2).join(", ")}; median ${f2(paired[Math.floor(paired.length / 2)]!)}.`,
  );
  console.log(
    `CPU seconds (least of the rounds): clipd ${f2(best(clipdCpu))}, bare ${f2(best(bareCpu))}, ` +
      `ratio ${f2(best(clipdCpu) / best(bareCpu))}.`,
  );
  console.log(
    `Bytes (last round, ${env.preset} CRF ${DEFAULT_CRF} on both): clipd ${files.clipd}, bare ${files.bare}, ` +
      `ratio ${f2(files.clipd / files.bare)}; SSIM of clipd's picture against bare's ${files.ssim.toFixed(4)}.`,
  );
  return { ratio: best(clipd) / best(bare), rtf: best(clipd) / SECONDS, restyle: best(restyle) / SECONDS };
}

async function concurrencyPart(env: Env) {
  console.log(`\n#### Clip renders at once, ${CONC} s clips through the clip pipeline; load ${load()}\n`);
  console.log("| at once | wall s | clips per minute | first clip ready s | CPU s per clip | cores busy |");
  console.log("|---:|---:|---:|---:|---:|---:|");
  for (const n of [1, 2, 3]) {
    const cpu0 = childCpuSeconds();
    const t = performance.now();
    const walls = await Promise.all(
      Array.from({ length: n }, (_, i) => clipdRender(env, `conc${n}-${i}`, CONC).then((r) => r.wall)),
    );
    const wall = (performance.now() - t) / 1000;
    const cpu = childCpuSeconds() - cpu0;
    console.log(
      `| ${n} | ${f2(wall)} | ${((n * 60) / wall).toFixed(2)} | ${f2(best(walls))} ` +
        `| ${f2(cpu / n)} | ${f2(cpu / wall)} |`,
    );
  }
}

async function main() {
  const root = repoRoot();
  const src = await makeSource(path.join(root, ".cache", "bench", "render-v1"), SOURCE_SECONDS);
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-render-"));
  const pipelines = loadBenchPipelines(root);
  const env: Env = {
    root,
    base,
    storage: defineLocalStorage(path.join(base, "storage")),
    src,
    pipelines,
    preset: finalPreset(pipelines.get("clip")!),
  };
  const ffmpeg = execFileSync("ffmpeg", ["-version"])
    .toString()
    .split("\n")[0]!
    .replace(/ Copyright.*/, "");
  console.log(
    `### bench/render: ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? "?"}), ` +
      `Node ${process.versions.node}, ${ffmpeg}; load average ${load()}`,
  );
  const commit = execFileSync("git", ["log", "-1", "--format=%h %cI"], { cwd: root }).toString().trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root }).toString().trim()
    ? " (with uncommitted changes)"
    : "";
  console.log(
    `commit ${commit}${dirty}; clipd's final encode preset: ${env.preset}; DEFAULT_PRESET: ${DEFAULT_PRESET}`,
  );
  try {
    let main: Awaited<ReturnType<typeof mainPart>> | undefined;
    // the others need its ASS file
    if (PARTS.has("main") || PARTS.has("presets") || PARTS.has("threads")) main = await mainPart(env);
    if (PARTS.has("presets")) await presetsPart(sweepEnv(env), SWEEP, load);
    if (PARTS.has("encode")) await encodePart({ base: env.base, video: env.src.video }, SWEEP, load);
    if (PARTS.has("threads")) await threadsPart(sweepEnv(env), SWEEP, load);
    if (PARTS.has("concurrency")) await concurrencyPart(env);
    console.log(`\nload average at the end ${load()}`);
    if (main) {
      console.log(
        `Targets: clipd ≤ 1.05× bare: ${main.ratio <= 1.05 ? "met" : "NOT met"}; ` +
          `≤ 0.40× clip length: ${main.rtf <= 0.4 ? "met" : "NOT met"}; restyle ${main.restyle.toFixed(2)}× ` +
          `≤ 0.35×: ${main.restyle <= 0.35 ? "met" : "NOT met"}.`,
      );
      console.log(`render: ${main.ratio.toFixed(2)}× bare ffmpeg, ${main.rtf.toFixed(2)}× clip length`);
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
