/**
 * bench/render: wall time of rendering one 60 s vertical clip with word-by-word captions.
 *
 * A 60 s 1920×1080 source is generated once (testsrc2 with a hard cut every 15 s, espeak-ng speech
 * padded to 60 s, words timed by their length over each sentence) and cached under .cache/bench.
 * Then the real stages run in-process, exactly as the runner calls them: `cut` (fit=crop, per-scene
 * attention crop, 1080×1920) and `caption-burn` (bold-punch, active word highlighted). Reported per
 * stage and in total: wall seconds, RTF (wall ÷ 60 s of clip) and frames per second of output.
 *
 *   npm run build && node dist/bench/render.js
 *
 * Knobs: BENCH_PRESETS (comma list of x264 presets, default "veryfast"), BENCH_SECONDS (clip
 * length, default 60), BENCH_JSON=1 (also print raw results).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pino from "pino";
import type { StageContext } from "../daemon/engine/stage.js";
import { defineLocalStorage } from "../daemon/kit/storage.js";
import captionBurn from "../plugins/caption-burn/index.js";
import cut from "../plugins/cut/index.js";

const exec = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const FPS = 30;
const PRESETS = (process.env.BENCH_PRESETS ?? "veryfast").split(",").map((s) => s.trim()).filter(Boolean);
/** The cut's preset; the clip pipeline encodes its intermediate cut with ultrafast. */
const CUT_PRESET = process.env.BENCH_CUT_PRESET ?? "ultrafast";

const TEXT = [
  "Why do short clips need captions at all?",
  "Most people scroll through their feed with the sound turned off.",
  "If the words are not on the screen, the story is lost in the first second.",
  "So we time every word and light it up as it is spoken.",
  "That keeps the eye on the message and the thumb off the next video.",
  "Here is the surprising part: captions also help people who can hear perfectly well.",
  "They read along, they remember more, and they share what they understood.",
  "Three numbers tell the story.",
  "Eighty percent watch muted, half finish a captioned clip, and a third share it.",
  "So the question is not whether to caption, but how to make captions worth reading.",
  "Short lines, big letters, and a highlight that follows the voice.",
  "That is what this pipeline renders, one frame at a time.",
];

function repoRoot(): string {
  // dist/bench/render.js or bench/render.ts: the root is the folder holding package.json.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const probeSeconds = async (file: string) =>
  Number((await exec("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])).stdout);

interface Word { text: string; start: number; end: number; confidence: number }

/** The cached 60 s source and its word times. */
async function makeSource(dir: string): Promise<{ video: string; words: Word[] }> {
  await mkdir(dir, { recursive: true });
  const words: Word[] = [];
  const wavs: string[] = [];
  let t = 0.3;
  for (let i = 0; i < TEXT.length && t < SECONDS - 1; i++) {
    const line = TEXT[i]!; // i < TEXT.length
    const wav = path.join(dir, `s${i}.wav`);
    if (!existsSync(wav)) await exec("espeak-ng", ["-v", "en-us", "-s", "165", "-w", wav, line]);
    const len = await probeSeconds(wav);
    const ws = line.split(" ");
    const chars = ws.reduce((a, w) => a + w.length + 1, 0);
    let u = t + 0.1;
    for (const w of ws) {
      const d = ((len - 0.25) * (w.length + 1)) / chars;
      if (u + d < SECONDS) words.push({ text: w, start: +u.toFixed(3), end: +(u + d * 0.9).toFixed(3), confidence: 0.9 });
      u += d;
    }
    wavs.push(wav);
    t += len + 0.3;
  }
  const video = path.join(dir, `source-${SECONDS}s.mp4`);
  if (!existsSync(video)) {
    // Speech sentences with 0.3 s gaps, padded to the full length; testsrc2 with a hard cut every 15 s.
    const inputs = wavs.flatMap((w) => ["-i", w]);
    const audio = `${wavs.map((_, i) => `[${i + 1}:a]aresample=48000,apad=pad_dur=0.3[a${i}]`).join(";")};${wavs.map((_, i) => `[a${i}]`).join("")}concat=n=${wavs.length}:v=0:a=1,apad,atrim=0:${SECONDS}[aout]`;
    const picture = `[0:v]hue=H=2*PI*floor(t/15)/4:s=1.4[vout]`;
    await exec("ffmpeg", [
      "-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=s=1920x1080:r=${FPS}:d=${SECONDS}`, ...inputs,
      "-filter_complex", `${picture};${audio}`, "-map", "[vout]", "-map", "[aout]", "-t", String(SECONDS),
      "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "250", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k",
      video + ".part.mp4",
    ]);
    await rename(video + ".part.mp4", video);
  }
  return { video, words };
}

interface Row { preset: string; stage: string; seconds: number; rtf: number; fps: number; note?: string }

async function benchPreset(preset: string, src: { video: string; words: Word[] }): Promise<Row[]> {
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-render-"));
  try {
    const storage = defineLocalStorage(path.join(base, "storage"));
    const marks: Record<string, number> = {};
    const ctxFor = async (name: string, options: Record<string, unknown>): Promise<StageContext<any>> => {
      const workdir = path.join(base, `work-${name}`);
      await mkdir(workdir, { recursive: true });
      return {
        signal: new AbortController().signal, log: pino({ level: "silent" }), workdir, storage,
        progress: (_p, note) => void (note && (marks[`${name}:${note}`] ??= performance.now())),
        runId: `bench-${preset}`, stepId: name, pipeline: "clip", options, config: {},
      };
    };
    await storage.putFile("runs/b/source.mp4", src.video);
    await storage.write("runs/b/transcript.json", JSON.stringify({ engine: "bench", language: "en", duration: SECONDS, words: src.words, segments: [] }));
    const input = {
      source: { key: "runs/b/source.mp4", name: "source.mp4", bytes: 1 },
      media: { duration: SECONDS, kind: "video", width: 1920, height: 1080, rotation: 0, has_audio: true },
      transcript: { key: "runs/b/transcript.json", engine: "bench", language: "en", duration: SECONDS, files: {} },
      clip: { ref: "bench", number: 1, title: "Why captions matter", start: 0, end: SECONDS, pieces: [{ start: 0, end: SECONDS }] },
    };
    const t0 = performance.now();
    const cutOut = await cut.run(input, await ctxFor("cut", { fit: "crop", preset: CUT_PRESET }));
    const t1 = performance.now();
    await captionBurn.run({ ...input, ...cutOut }, await ctxFor("burn", { style: "bold-punch", hook_title: true, preset }));
    const t2 = performance.now();
    const frames = SECONDS * FPS;
    const row = (stage: string, ms: number, note?: string): Row => ({
      preset, stage, seconds: +(ms / 1000).toFixed(2), rtf: +(ms / 1000 / SECONDS).toFixed(3), fps: +(frames / (ms / 1000)).toFixed(1), note,
    });
    const scenes = marks["cut:cutting"] !== undefined ? (marks["cut:cutting"] - t0) / 1000 : undefined;
    return [
      row("cut", t1 - t0, scenes !== undefined ? `scene analysis ${scenes.toFixed(1)} s, ${cutOut.cut.crop_plan?.length ?? 1} crop scenes` : undefined),
      row("caption-burn", t2 - t1, "includes poster + ffprobe check"),
      row("total", t2 - t0),
    ];
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

async function main() {
  const root = repoRoot();
  const started = performance.now();
  const src = await makeSource(path.join(root, ".cache", "bench", "render-v1"));
  const prepS = (performance.now() - started) / 1000;
  const cores = os.availableParallelism();
  const ffmpeg = (await exec("ffmpeg", ["-version"])).stdout.split("\n")[0]!.replace(/ Copyright.*/, "");
  const load = os.loadavg()[0]!; // loadavg() always has three entries
  const rows: Row[] = [];
  for (const preset of PRESETS) rows.push(...(await benchPreset(preset, src)));

  console.log(`\n### bench/render: ${SECONDS} s clip, 1920×1080 source → 1080×1920 H.264 CRF 20 at ${FPS} fps, ${src.words.length} words\n`);
  console.log(`${cores} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.versions.node}, ${ffmpeg}; load average ${load.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}; source ready in ${prepS.toFixed(1)} s (not counted)\n`);
  console.log("| cores | preset | stage | wall s | RTF | fps | note |");
  console.log("|---:|---|---|---:|---:|---:|---|");
  for (const r of rows) console.log(`| ${cores} | ${r.preset} | ${r.stage} | ${r.seconds.toFixed(2)} | ${r.rtf.toFixed(3)} | ${r.fps.toFixed(1)} | ${r.note ?? ""} |`);
  for (const preset of PRESETS) {
    const total = rows.find((r) => r.preset === preset && r.stage === "total")!;
    console.log(`\nTarget RTF ≤ 0.5 (total, ${preset}): ${total.rtf <= 0.5 ? "met" : "NOT met"} (${total.rtf.toFixed(3)}).`);
  }
  if (process.env.BENCH_JSON) console.log(JSON.stringify({ cores, rows }, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
