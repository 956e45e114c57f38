/**
 * bench/render-one-pass: the first render and a restyle, each measured both ways, side by side.
 *
 *   first render  two pass: cut encodes a caption-free MP4 (ultrafast), caption-burn burns over it
 *                 one pass: cut plans, caption-burn renders from the source (what clip.yaml does)
 *                 one pass + kept intermediate: the same graph with a second, caption-free output
 *                 (ultrafast), which a restyle over an intermediate would need
 *   restyle       from the source in one pass, or re-burned over the kept intermediate
 *
 * Every variant runs the real stages in-process with the default preset of caption-burn, on
 * bench/render's own 60 s 1080p source (run `node dist/bench/render.js` once to make it). Rounds
 * alternate the variants, so a loaded machine slows them alike; the table gives each one's median
 * wall time and CPU time (ffmpeg's and this process's).
 *
 *   npm run build && node dist/bench/render-one-pass.js      # BENCH_ROUNDS (default 2)
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import type { StageContext } from "../daemon/engine/stage.js";
import { planArgs } from "../daemon/render/clip-graph.js";
import { runFfmpeg } from "../daemon/render/render.js";
import { defineLocalStorage } from "../daemon/storage/storage.js";
import captionBurn from "../plugins/caption-burn/index.js";
import cut from "../plugins/cut/index.js";

const SECONDS = 60;
const ROUNDS = Math.max(1, Math.min(5, Number(process.env.BENCH_ROUNDS ?? 2)));
const SOURCE = path.join(process.cwd(), ".cache", "bench", "render-v1", `source-${SECONDS}s.mp4`);

/** Words spread evenly over the clip: the caption load of bench/render's speech, without espeak. */
const WORDS = Array.from({ length: 150 }, (_, i) => ({
  text: ["why", "short", "clips", "need", "captions"][i % 5]!,
  start: 0.3 + i * 0.39,
  end: 0.3 + i * 0.39 + 0.33,
  confidence: 0.9,
}));

/**
 * CPU seconds of this process and its finished children (ffmpeg): less swayed by a loaded machine
 * than wall time, since a variant's work costs the same CPU however many others run beside it.
 */
function cpuSeconds(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // f[0] is field 3 (state)
    return [11, 12, 13, 14].reduce((a, i) => a + Number(f[i]), 0) / 100; // utime stime cutime cstime, in USER_HZ
  } catch {
    return process.cpuUsage().user / 1e6; // not Linux: this process only
  }
}

async function main() {
  if (!existsSync(SOURCE))
    throw new Error(`no ${SOURCE}: run node dist/bench/render.js once to make bench/render's source`);
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-one-pass-"));
  const storage = defineLocalStorage(path.join(base, "storage"));
  await storage.putFile("runs/b/source.mp4", SOURCE);
  await storage.write(
    "runs/b/transcript.json",
    JSON.stringify({ engine: "bench", language: "en", duration: SECONDS, words: WORDS, segments: [] }),
  );
  const input = {
    source: { key: "runs/b/source.mp4" },
    media: { duration: SECONDS, kind: "video", width: 1920, height: 1080, has_audio: true },
    transcript: { key: "runs/b/transcript.json" },
    clip: {
      ref: "bench",
      number: 1,
      title: "Why captions matter",
      start: 0,
      end: SECONDS,
      pieces: [{ start: 0, end: SECONDS }],
    },
  };
  let n = 0;
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  const ctx = async (options: Record<string, unknown>): Promise<StageContext<any>> => {
    const workdir = path.join(base, `work-${++n}`);
    await mkdir(workdir, { recursive: true });
    return {
      signal: new AbortController().signal,
      log: pino({ level: "silent" }),
      workdir,
      storage,
      progress: () => {},
      runId: `r${n}`,
      stepId: "0",
      pipeline: "clip",
      options,
      config: {},
    };
  };
  const burn = { style: "bold-punch", hook_title: true };
  const restyle = { style: "boxed" };
  const times: Record<string, number[]> = {};
  const cpus: Record<string, number[]> = {};
  const time = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    const [t0, c0] = [performance.now(), cpuSeconds()];
    const r = await f();
    (times[name] ??= []).push((performance.now() - t0) / 1000);
    (cpus[name] ??= []).push(cpuSeconds() - c0);
    return r;
  };
  const load = os.loadavg()[0]!;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const two = await time("first render, two pass (today)", async () => {
        const c = await cut.run(input, await ctx({ encode: true, preset: "ultrafast" }));
        await captionBurn.run({ ...input, ...c }, await ctx(burn));
        return c;
      });
      const one = await time("first render, one pass", async () => {
        const c = await cut.run(input, await ctx({ encode: false }));
        const r = await captionBurn.run({ ...input, ...c }, await ctx(burn));
        return { ...c, ...r };
      });
      await time("first render, one pass + caption-free intermediate (extra output)", async () => {
        // The plan's graph with its picture split: captions on one output, none on a second.
        // The same captions as the one-pass render's (its stored .ass).
        const c = await cut.run(input, await ctx({ encode: false }));
        const w = await ctx(burn);
        await writeFile(path.join(w.workdir, "captions.ass"), await storage.read(one.render.ass_key));
        const args = planArgs(
          c.cut.render_plan,
          { source: SOURCE },
          { output: path.join(w.workdir, "captioned.mp4"), burn: "ass=filename=captions.ass" },
        );
        const g = args.indexOf("-filter_complex") + 1;
        args[g] = args[g]!.replace(
          "[vl]ass=filename=captions.ass[vout]",
          "[vl]split[vk][vb];[vb]ass=filename=captions.ass[vout];[aj]asplit[aj1][aj2]",
        );
        const ai = args.indexOf("[aj]");
        args[ai] = "[aj1]";
        args.push(
          "-map",
          "[vk]",
          "-map",
          "[aj2]",
          "-t",
          String(SECONDS),
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "-crf",
          "20",
          "-c:a",
          "aac",
          path.join(w.workdir, "plain.mp4"),
        );
        await runFfmpeg(args, { cwd: w.workdir });
      });
      await time("restyle, one pass from the source", async () =>
        captionBurn.run({ cut: one.cut, render: one.render }, await ctx(restyle)),
      );
      await time("restyle, re-burn over the kept intermediate", async () =>
        captionBurn.run({ cut: two.cut, render: one.render }, await ctx(restyle)),
      );
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  console.log(
    `\n### bench/render-one-pass: ${SECONDS} s clip, 1920×1080 → 1080×1920, ` +
      `caption-burn's default preset, ${ROUNDS} rounds (median)\n`,
  );
  console.log(`${os.availableParallelism()} cores, load average ${load.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}\n`);
  console.log("| variant | wall s | × clip length | CPU s | CPU s ÷ clip length | wall s per run |");
  console.log("|---|---:|---:|---:|---:|---|");
  for (const [name, v] of Object.entries(times)) {
    const c = median(cpus[name]!);
    console.log(
      `| ${name} | ${median(v).toFixed(1)} | ${(median(v) / SECONDS).toFixed(3)} ` +
        `| ${c.toFixed(1)} | ${(c / SECONDS).toFixed(3)} | ${v.map((x) => x.toFixed(1)).join(", ")} |`,
    );
  }
  for (const [what, set] of [
    ["wall", times],
    ["CPU", cpus],
  ] as const) {
    const m = (k: string) => median(set[k]!);
    const ratio = (a: string, b: string) => (m(a) / m(b)).toFixed(2);
    const onePass = "first render, one pass";
    console.log(
      `\n${what}: first render one pass ÷ two pass ${ratio(onePass, "first render, two pass (today)")}; ` +
        "keeping an intermediate costs the first render " +
        `×${ratio("first render, one pass + caption-free intermediate (extra output)", onePass)}; ` +
        "restyle re-burn ÷ one pass from the source " +
        ratio("restyle, re-burn over the kept intermediate", "restyle, one pass from the source"),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
