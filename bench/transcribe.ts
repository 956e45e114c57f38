/**
 * Transcription benchmark: the real-time factor (wall time ÷ audio length) of each available engine
 * on test/fixtures/media/jfk.wav and on a generated 20-minute two-voice episode, with its word error rate.
 *
 *   npm run build && node dist/bench/transcribe.js
 *
 * Engines measured (each through the real `transcribe` stage, as a pipeline step runs it):
 * - pocketsphinx, chunked: cut at silences into `chunk_seconds` chunks, `concurrency` = cores;
 * - pocketsphinx, single process: one chunk, concurrency 1 (the baseline);
 * - whisper with test/fixtures/models/for-tests-ggml-tiny.en.bin when present. That model has no
 *   weights: it exercises the decoding path but recognises nothing, so its WER means nothing.
 *
 * Besides wall time, the CPU seconds used (this process and its children: ffmpeg, pocketsphinx)
 * are reported, so a run on a busy machine can be told apart from a slow decoder.
 * Knobs: BENCH_EPISODE_SECONDS (1200), BENCH_CASES (comma list of case ids, run in that order; default all),
 * BENCH_CHUNK_SECONDS (chunk length of the chunked case; default: the stage's default),
 * BENCH_WHISPER_EPISODE=1 also runs the weightless whisper model on the episode (slow: RTF ≈ 2),
 * BENCH_JSON=1 prints the raw results too, BENCH_SKIP_JFK=1 leaves jfk.wav out.
 * Each run's progress reports are kept and summarised (issue 17: progress must not stall).
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { projectRoot } from "../config/loader.js";
import type { StageContext } from "../daemon/engine/stage.js";
import { defineLocalStorage } from "../daemon/storage/storage.js";
import transcribe, { type TranscribeOptions } from "../plugins/transcribe/index.js";
import { makeEpisode, wordErrorRate } from "../test/fixtures/episodes.js";

const ROOT = projectRoot();
const JFK = path.join(ROOT, "test", "fixtures", "media", "jfk.wav");
const JFK_TEXT =
  "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
const TEST_MODEL = path.join(ROOT, "test", "fixtures", "models", "for-tests-ggml-tiny.en.bin");
const EPISODE_SECONDS = Number(process.env.BENCH_EPISODE_SECONDS ?? 1200);
const CHUNK_SECONDS = process.env.BENCH_CHUNK_SECONDS ? Number(process.env.BENCH_CHUNK_SECONDS) : undefined;
const CORES = os.availableParallelism();
const WHISPER_LONG = process.env.BENCH_WHISPER_EPISODE === "1";

interface Case {
  id: string;
  label: string;
  options: TranscribeOptions;
  /** Only on jfk.wav: the weightless whisper model decodes at RTF ≈ 2 and finds nothing. */
  shortOnly?: boolean;
}

const CASES: Case[] = [
  {
    id: "ps-chunked",
    label: `pocketsphinx chunked (concurrency ${CORES})`,
    options: { engine: "pocketsphinx", concurrency: CORES, ...(CHUNK_SECONDS ? { chunk_seconds: CHUNK_SECONDS } : {}) },
  },
  {
    id: "ps-single",
    label: "pocketsphinx single process (1 chunk)",
    options: { engine: "pocketsphinx", concurrency: 1, chunk_seconds: 3600 },
  },
  ...(existsSync(TEST_MODEL)
    ? [
        {
          id: "whisper-test",
          label: "whisper, for-tests tiny.en (no weights)",
          options: { engine: "whisper", model: TEST_MODEL, concurrency: CORES } as TranscribeOptions,
          shortOnly: !WHISPER_LONG,
        },
      ]
    : []),
];

/** CPU seconds used so far by this process and by its children that have been waited for. */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 16 and 17 (cutime, cstime), in clock ticks (100 per second on Linux).
    children = (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    /* not Linux: own time only */
  }
  return (own.user + own.system) / 1e6 + children;
}

interface Result {
  case: string;
  label: string;
  audio: string;
  audioSeconds: number;
  wallSeconds: number;
  cpuSeconds: number;
  rtf: number;
  words: number;
  wer?: number;
  error?: string;
  /** Step progress over wall time: [seconds since start, percent, eta seconds]. */
  trace: Array<[number, number, number | undefined]>;
}

async function runCase(
  c: Case,
  audio: { name: string; file: string; seconds: number; text?: string },
): Promise<Result> {
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-tx-"));
  const storage = defineLocalStorage(path.join(base, "storage"));
  await mkdir(path.join(base, "work"), { recursive: true });
  const key = `bench/${path.basename(audio.file)}`;
  await storage.putFile(key, audio.file);
  const ctx: StageContext<TranscribeOptions> = {
    signal: new AbortController().signal,
    log: pino({ level: process.env.BENCH_LOG ?? "silent" }),
    progress: (pct, _note, eta) => void result.trace.push([(performance.now() - t0) / 1000, pct, eta]),
    workdir: path.join(base, "work"),
    storage,
    runId: "00000000-0000-4000-8000-00000000b001",
    stepId: "bench",
    pipeline: "bench",
    options: c.options,
    config: { data_dir: path.join(base, "data") },
  };
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  const result: Result = {
    case: c.id,
    label: c.label,
    audio: audio.name,
    audioSeconds: audio.seconds,
    wallSeconds: 0,
    cpuSeconds: 0,
    rtf: 0,
    words: 0,
    trace: [],
  };
  try {
    const out = (await transcribe.run(
      { source: { key }, media: { duration: audio.seconds, has_audio: true } },
      ctx,
      // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    )) as any;
    result.wallSeconds = (performance.now() - t0) / 1000;
    result.words = out.transcript.word_count;
    if (audio.text) {
      const txt = (await storage.read(out.transcript.files.txt)).toString("utf8");
      result.wer = wordErrorRate(audio.text, txt).wer;
    }
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    result.wallSeconds = (performance.now() - t0) / 1000;
    result.error = err?.code ?? err?.message ?? String(err);
  } finally {
    result.cpuSeconds = cpuSeconds() - cpu0;
    result.rtf = result.wallSeconds / audio.seconds;
    await rm(base, { recursive: true, force: true });
  }
  return result;
}

function report(results: Result[]): string {
  const cpu = os.cpus()[0]?.model?.trim() ?? "unknown CPU";
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const out = [
    `clipd transcribe benchmark, ${new Date().toISOString().slice(0, 10)}, ` +
      `Node ${process.version}, ${CORES} cores (${cpu}), load average at the end ${load}`,
    "",
    "| cores | engine | audio | audio s | wall s | RTF | CPU s | CPU ÷ audio | words | WER |",
    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const wer = r.error ? `failed: ${r.error}` : r.wer === undefined ? "—" : r.wer.toFixed(3);
    out.push(
      `| ${CORES} | ${r.label} | ${r.audio} | ${r.audioSeconds.toFixed(1)} | ` +
        `${r.wallSeconds.toFixed(1)} | ${r.rtf.toFixed(3)} | ${r.cpuSeconds.toFixed(1)} ` +
        `| ${(r.cpuSeconds / r.audioSeconds).toFixed(3)} | ${r.words} | ${wer} |`,
    );
  }
  const chunked = results.find((r) => r.case === "ps-chunked" && !r.audio.startsWith("jfk") && !r.error);
  const single = results.find((r) => r.case === "ps-single" && !r.audio.startsWith("jfk") && !r.error);
  out.push("");
  if (chunked) {
    out.push(
      `Target: chunked pocketsphinx RTF ≤ 0.2 on ${CORES} cores (episode): ${chunked.rtf <= 0.2 ? "met" : "NOT met"} ` +
        `(${chunked.rtf.toFixed(3)}` +
        (single
          ? `; single process ${single.rtf.toFixed(3)}, speed-up ×${(single.rtf / chunked.rtf).toFixed(2)}`
          : "") +
        ").",
    );
  }
  out.push(
    "RTF = wall time ÷ audio length (lower is faster). The whisper row uses " +
      "a model without weights: its words and WER mean nothing.",
  );
  out.push(
    "",
    "Progress as reported (step percent over wall time; the longest wait between " +
      "two reports, the largest single jump, and the time-left estimate at the " +
      "middle of the run):",
    "",
  );
  out.push(
    "| engine | audio | longest silence s | largest jump % | eta at half-time " +
      "s (actual) | percent at each tenth of the wall time |",
    "|---|---|---:|---:|---:|---|",
  );
  for (const r of results.filter((x) => !x.error && x.trace.length)) out.push(traceRow(r));
  return out.join("\n");
}

/** One table row summarising a run's progress reports. */
function traceRow(r: Result): string {
  const t = r.trace;
  let gap = t[0]![0];
  let jump = t[0]![1];
  for (let i = 1; i < t.length; i++) {
    gap = Math.max(gap, t[i]![0] - t[i - 1]![0]);
    jump = Math.max(jump, t[i]![1] - t[i - 1]![1]);
  }
  gap = Math.max(gap, r.wallSeconds - t.at(-1)![0]);
  const at = (s: number) => [...t].reverse().find((x) => x[0] <= s);
  const half = at(r.wallSeconds / 2);
  const tenths = Array.from({ length: 10 }, (_, i) => Math.round(at((r.wallSeconds * (i + 1)) / 10)?.[1] ?? 0)).join(
    " ",
  );
  const eta = half?.[2] === undefined ? "—" : `${half[2].toFixed(0)} (${(r.wallSeconds - half[0]).toFixed(0)})`;
  return `| ${r.label} | ${r.audio} | ${gap.toFixed(1)} | ${jump.toFixed(1)} | ${eta} | ${tenths} |`;
}

async function main() {
  const wanted = process.env.BENCH_CASES?.split(",").map((s) => s.trim());
  // In the order given, so that two runs in opposite orders (A B, then B A) even out a load that drifts.
  const cases = wanted ? wanted.map((id) => CASES.find((c) => c.id === id)).filter((c): c is Case => !!c) : CASES;
  const started = performance.now();
  const progress = (msg: string) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0)}s] ${msg}`);
  progress(`generating the ${EPISODE_SECONDS} s episode (cached after the first run)`);
  const episode = await makeEpisode({ seconds: EPISODE_SECONDS });
  const audios = [
    ...(process.env.BENCH_SKIP_JFK === "1" ? [] : [{ name: "jfk.wav", file: JFK, seconds: 11, text: JFK_TEXT }]),
    {
      name: `episode ${Math.round(EPISODE_SECONDS / 60)} min (espeak, 2 voices)`,
      file: episode.file,
      seconds: EPISODE_SECONDS,
      text: episode.text,
    },
  ];
  const results: Result[] = [];
  for (const audio of audios) {
    for (const c of cases) {
      if (c.shortOnly && audio.seconds > 60) continue;
      progress(`${c.label} on ${audio.name}`);
      const r = await runCase(c, audio);
      progress(
        `  → wall ${r.wallSeconds.toFixed(1)} s, RTF ${r.rtf.toFixed(3)}${r.error ? `, failed: ${r.error}` : ""}`,
      );
      results.push(r);
    }
  }
  console.log(report(results));
  if (process.env.BENCH_JSON) console.log(JSON.stringify(results, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
