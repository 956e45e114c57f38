/**
 * bench/render's sweeps of the bare graph over the first BENCH_SWEEP_SECONDS: x264 presets at one
 * bitrate budget (BENCH_BUDGET_KBPS, SSIM against preset slow at CRF 16, the least CPU among those
 * writing High within 0.005 of veryfast's SSIM), and ffmpeg's thread flags against clipd's.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CRF, DEFAULT_PRESET, PEAK_KBPS_1080x1920, THREAD_ARGS } from "../daemon/render/render.js";
import { profileOf, runBare, ssim } from "./_render-bare.js";
import { FPS } from "./_render-source.js";

export interface SweepEnv {
  base: string;
  video: string;
  /** The preset clipd's final encode uses (read from the pipeline). */
  preset: string;
}

/**
 * The preset sweep's bitrate budget (kbit/s): an eighth of the 1080×1920 ceiling, about what CRF 20
 * spends on this source at veryfast, so presets are compared at the size a clip really has.
 */
const BUDGET = Number(process.env.BENCH_BUDGET_KBPS ?? PEAK_KBPS_1080x1920 / 8);
/** How far under veryfast's SSIM a faster preset may fall. */
const MARGIN = 0.005;
const f2 = (v: number) => v.toFixed(2);

/** The presets the equal-size sweep compares: the shipped one's neighbours. */
const SWEPT = ["ultrafast", "superfast", "veryfast", "faster"] as const;

export async function presetsPart(env: SweepEnv, SWEEP: number, load: () => string): Promise<void> {
  const pieces = [{ start: 0, end: SWEEP }];
  const out = (name: string) => path.join(env.base, `sweep-${name}.mp4`);
  const common = { source: env.video, pieces, ass: "captions.ass", cwd: env.base, peakKbps: PEAK_KBPS_1080x1920 };
  const ref = await runBare({ ...common, output: out("reference"), preset: "slow", crf: 16 });
  const rows: Array<{ preset: string; wall: number; cpu: number; bytes: number; ssim: number; profile: string }> = [];
  for (const preset of SWEPT) {
    const { wall, cpu } = await runBare({ ...common, output: out(preset), preset, crf: 0, bitrateKbps: BUDGET });
    rows.push({
      preset,
      wall,
      cpu,
      bytes: (await stat(out(preset))).size,
      ssim: await ssim(out(preset), out("reference")),
      profile: await profileOf(out(preset)),
    });
  }
  const vf = rows.find((r) => r.preset === "veryfast")!;
  const fits = (r: (typeof rows)[number]) => r.profile === "High" && r.ssim >= vf.ssim - MARGIN;
  // "Fastest" by CPU seconds: on a shared machine the wall time of a 20 s encode swings by half
  // with the load, while the CPU it costs ranks the presets the same from run to run.
  const within = rows.filter(fits).sort((a, b) => a.cpu - b.cpu);
  console.log(
    `\n#### x264 presets at equal size, bare graph, first ${SWEEP} s, -b:v ${BUDGET}k under ` +
      `maxrate ${PEAK_KBPS_1080x1920}k; SSIM against slow CRF 16 (${f2(ref.wall)} s); load ${load()}\n`,
  );
  console.log("| preset | profile | wall s | fps | CPU s | size MB | SSIM | High and within 0.005 of veryfast |");
  console.log("|---|---|---:|---:|---:|---:|---:|---|");
  for (const r of rows) {
    console.log(
      `| ${r.preset} | ${r.profile} | ${f2(r.wall)} | ${((SWEEP * FPS) / r.wall).toFixed(1)} ` +
        `| ${f2(r.cpu)} | ${(r.bytes / 1e6).toFixed(2)} | ${r.ssim.toFixed(4)} | ${fits(r) ? "yes" : "no"} |`,
    );
  }
  const choice = within[0]!.preset; // veryfast itself is always within
  console.log(
    `\nChosen by measurement: ${choice} (the least CPU among presets writing High within ${MARGIN} of ` +
      `veryfast's SSIM ${vf.ssim.toFixed(4)} at ${BUDGET} kbit/s); shipped default: ${DEFAULT_PRESET}` +
      `${choice === DEFAULT_PRESET ? "" : " (differs: see docs/benchmarks.md)"}.`,
  );
}

export async function threadsPart(env: SweepEnv, SWEEP: number, load: () => string): Promise<void> {
  const variants: Array<[string, string[]]> = [
    ["ffmpeg defaults", []],
    [`clipd: ${THREAD_ARGS.join(" ")}`, [...THREAD_ARGS]],
    ["-threads 2, filter threads 1", ["-threads", "2", "-filter_complex_threads", "1"]],
    ["-threads 0, filter threads 2", ["-threads", "0", "-filter_complex_threads", "2"]],
  ];
  console.log(`\n#### Threads, bare graph, first ${SWEEP} s at ${env.preset} (best of 2); load ${load()}\n`);
  console.log("| flags | wall s | fps | CPU s |");
  console.log("|---|---:|---:|---:|");
  for (const [name, extra] of variants) {
    const runs: Array<{ wall: number; cpu: number }> = [];
    for (let i = 0; i < 2; i++) {
      runs.push(
        await runBare({
          source: env.video,
          pieces: [{ start: 0, end: SWEEP }],
          ass: "captions.ass",
          cwd: env.base,
          output: path.join(env.base, "threads.mp4"),
          preset: env.preset,
          crf: DEFAULT_CRF,
          extra,
        }),
      );
    }
    const b = runs.reduce((x, y) => (y.wall < x.wall ? y : x));
    console.log(`| ${name} | ${f2(b.wall)} | ${((SWEEP * FPS) / b.wall).toFixed(1)} | ${f2(b.cpu)} |`);
  }
}
