/**
 * bench/reframe: the camera operator (issue 37) on the composed scenes of its tests, at 1080p.
 * For each scene it prints the analysis's cost against the clip's length (processor time of this
 * process, its ffmpeg decodes and the face finder's child; wall time), for the first version's
 * analysis ("before": every sample detected with landmarks, `full`) and this one back to back, and
 * what the rendered 9:16 frames of each plan show:
 * face-in-frame (a face wholly inside, of the frames where one is on screen), speaker-in-frame (the
 * talking person's face, from 0.5 s after each change; follow layout) and jitter (the largest move
 * of the picture between two frames outside cuts, in % of the frame's width).
 *
 *   npm run build && node dist/bench/reframe.js        # BENCH_LONG=60 also times a 60 s two-shot
 */
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { CameraPlan } from "../daemon/render/camera.js";
import { reframe } from "../plugins/cut/reframe.js";
import { compose, SCENES, type SceneName, type Turn } from "../test/fixtures/reframe.js";
import { descriptorOf, facesOf, inside, renderCamera, shifts, speakerShare } from "../test/helpers/reframe-checks.js";

const HEIGHT = Number(process.env.BENCH_HEIGHT ?? 1080);
/** BENCH_BEFORE=0 leaves out the first version's analysis (the "before" columns). */
const BEFORE = process.env.BENCH_BEFORE !== "0";
const dir = path.join(process.cwd(), ".cache", "bench", `reframe-${HEIGHT}`);
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** Processor seconds of this process and its ended children (ffmpeg, the face finder), from /proc. */
function cpuSeconds(): number {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After the name: utime, stime, cutime, cstime are fields 12–15 (0-based), in ticks of 1/100 s.
  return [11, 12, 13, 14].reduce((a, i) => a + Number(f[i]), 0) / 100;
}

/** The analysis of one scene, timed; `full`: the first version's cost (bench "before"). */
async function analyse(file: string, seconds: number, layout: "auto" | "follow", full: boolean) {
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  const r = await reframe(file, [{ start: 0, end: seconds }], { layout, full });
  return { r, wall: (performance.now() - t0) / 1000, cpu: cpuSeconds() - cpu0 };
}

/** What the rendered frames of a plan show: face-in-frame, speaker-in-frame, jitter. */
async function framing(fx: Awaited<ReturnType<typeof compose>>, scene: (typeof SCENES)[SceneName], camera: CameraPlan) {
  const video = await renderCamera(fx.file, scene.seconds, camera);
  const frames = await facesOf(video, scene.seconds);
  const from = "settled" in scene ? (scene.settled as number) : 0;
  const onScreen = frames.filter((f) => f.t >= from && scene.shots.some((s) => f.t >= s.from + 0.5 && f.t < s.to));
  const faceIn = onScreen.filter((f) => f.faces.some((x) => inside(x))).length / Math.max(1, onScreen.length);
  let speakerIn: number | undefined;
  if (camera.layout === "follow" && new Set(scene.turns.map((t: Turn) => t.who)).size > 1) {
    const ref = { a: await descriptorOf(fx.tiles.a), b: await descriptorOf(fx.tiles.b) };
    speakerIn = speakerShare(frames, scene.turns, ref);
  }
  const cuts = camera.paths
    .flat()
    .filter((k) => k.cut)
    .map((k) => k.t);
  const moves = (await shifts(video, scene.seconds)).filter((m) => !cuts.some((c) => Math.abs(m.t - c) < 0.1));
  const jitter = Math.max(0, ...moves.map((m) => m.shift));
  return `${onScreen.length ? pct(faceIn) : "—"} / ${speakerIn === undefined ? "—" : pct(speakerIn)} / ${pct(jitter)}`;
}

/** One row: the first version and this one on the same scene, back to back. */
async function measure(name: string, scene: (typeof SCENES)[SceneName], layout: "auto" | "follow") {
  const fx = await compose(dir, name, { ...scene, height: HEIGHT });
  const x = (v: number) => `${v.toFixed(2)} s (${(v / scene.seconds).toFixed(3)}×)`;
  const before = BEFORE ? await analyse(fx.file, scene.seconds, layout, true) : undefined;
  const after = await analyse(fx.file, scene.seconds, layout, false);
  const a = after.r.camera as CameraPlan;
  return [
    name,
    `${scene.seconds} s`,
    `${a.layout} (${layout})`,
    before ? x(before.cpu) : "—",
    x(after.cpu),
    before ? (after.cpu / before.cpu).toFixed(2) : "—",
    `${after.r.detected}/${after.r.frames}`,
    x(after.wall),
    before ? await framing(fx, scene, before.r.camera as CameraPlan) : "—",
    await framing(fx, scene, a),
  ];
}

/** The two-shot's turns repeated to `seconds`, for the cost against length. */
function longTwoShot(seconds: number) {
  const base = SCENES.two;
  const turns: Turn[] = [];
  for (let t = 0, i = 0; t + 4 <= seconds; t += 4, i++)
    turns.push({ who: i % 2 ? "b" : "a", start: t + 0.2, end: t + 4 });
  const shots = base.shots.map((s) => ({ ...s, to: seconds }));
  return { seconds, shots, turns };
}

async function main() {
  await mkdir(dir, { recursive: true });
  console.log(
    `# bench/reframe — ${HEIGHT}p sources, ${os.availableParallelism()} cores, load ${os.loadavg()[0]!.toFixed(1)}\n`,
  );
  const head = [
    "scene",
    "length",
    "layout (asked)",
    "cpu before",
    "cpu after",
    "after/before",
    "detected/sampled",
    "wall after",
    "framing before (face / speaker / jitter)",
    "framing after",
  ];
  console.log(`| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
  const rows: string[][] = [];
  for (const name of Object.keys(SCENES) as SceneName[]) rows.push(await measure(name, SCENES[name], "auto"));
  rows.push(await measure("two", SCENES.two, "follow"));
  const long = Number(process.env.BENCH_LONG ?? 0);
  if (long > 0) rows.push(await measure(`two-${long}`, longTwoShot(long) as (typeof SCENES)["two"], "follow"));
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(", ")}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
