// Helpers for the end-to-end tier: the real `clipd` CLI (built dist/) on real media, with real
// ffmpeg, pocketsphinx and libass. Each run gets its own data folder and config file, and the
// foreground run keeps its state in memory (no DATABASE_URL), as a user's `clipd run` does.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { runClipd } from "../helpers/cli.js";

const exec = promisify(execFile);

export interface E2eEnv {
  dir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh data folder and a config file (`config` is merged over the defaults by clipd). */
export async function e2eEnv(config: Record<string, unknown> = {}): Promise<E2eEnv> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-e2e-"));
  const dataDir = path.join(dir, "data");
  const file = path.join(dir, "clipd.yaml");
  await writeFile(file, stringify({ log: { pretty: false }, watch: { enabled: false }, ...config }));
  const env: NodeJS.ProcessEnv = { ...process.env, CLIPD_DATA_DIR: dataDir, CLIPD_CONFIG: file };
  delete env.DATABASE_URL;
  delete env.CLIPD_LOG_LEVEL;
  return { dir, dataDir, env };
}

/** `clipd <args>`; fails with the CLI's output when it exits non-zero. Returns output and wall time. */
export async function clipd(
  args: string[],
  e: E2eEnv,
  timeoutMs: number,
): Promise<{ output: string; seconds: number }> {
  const t0 = performance.now();
  const r = await runClipd(args, e.env, { timeoutMs });
  const seconds = (performance.now() - t0) / 1000;
  if (r.code !== 0)
    throw new Error(
      `clipd ${args.join(" ")} exited ${r.code} after ${seconds.toFixed(1)} s:\n${r.output.slice(-4000)}`,
    );
  return { output: r.output, seconds };
}

export const readJson = async <T = any>(file: string): Promise<T> => JSON.parse(await readFile(file, "utf8")) as T;

export interface Probed {
  width: number;
  height: number;
  videoCodec?: string;
  videoProfile?: string;
  pixFmt?: string;
  audioCodec?: string;
  duration: number;
  faststart: boolean;
}

/** ffprobe's view of a rendered file (container duration; whether the moov atom comes first). */
export async function ffprobe(file: string): Promise<Probed> {
  const { stdout } = await exec("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", file]);
  const info = JSON.parse(stdout);
  const v = info.streams.find((s: any) => s.codec_type === "video") ?? {};
  const a = info.streams.find((s: any) => s.codec_type === "audio") ?? {};
  // faststart: the "moov" box is written before "mdat".
  const head = (await readFile(file)).subarray(0, 1 << 16).toString("latin1");
  const moov = head.indexOf("moov");
  const mdat = head.indexOf("mdat");
  return {
    width: Number(v.width),
    height: Number(v.height),
    videoCodec: v.codec_name,
    videoProfile: v.profile,
    pixFmt: v.pix_fmt,
    audioCodec: a.codec_name,
    duration: Number(info.format.duration),
    faststart: moov >= 0 && (mdat < 0 || moov < mdat),
  };
}

/** One frame at `seconds` as 8-bit grey pixels, row by row. */
export async function grayFrame(
  file: string,
  seconds: number,
): Promise<{ width: number; height: number; pixels: Buffer }> {
  const p = await ffprobe(file);
  const { stdout } = await exec(
    "ffmpeg",
    [
      "-v",
      "error",
      "-ss",
      seconds.toFixed(3),
      "-i",
      file,
      "-frames:v",
      "1",
      "-vf",
      "format=gray",
      "-f",
      "rawvideo",
      "-",
    ],
    { encoding: "buffer", maxBuffer: 64 << 20 },
  );
  if (stdout.length !== p.width * p.height)
    throw new Error(`frame at ${seconds} s of ${file}: ${stdout.length} bytes, wanted ${p.width * p.height}`);
  return { width: p.width, height: p.height, pixels: stdout };
}

/**
 * Mean absolute difference (0–255) of two same-size frames in each of `bands` horizontal bands,
 * top to bottom.
 */
export function bandDiffs(
  a: { width: number; height: number; pixels: Buffer },
  b: { pixels: Buffer },
  bands = 16,
): number[] {
  const rowsPer = Math.floor(a.height / bands);
  const out: number[] = [];
  for (let band = 0; band < bands; band++) {
    let sum = 0;
    const from = band * rowsPer * a.width;
    const to = from + rowsPer * a.width;
    for (let i = from; i < to; i++) sum += Math.abs(a.pixels[i]! - b.pixels[i]!);
    out.push(sum / (to - from));
  }
  return out;
}

export interface SrtCue {
  index: number;
  start: number;
  end: number;
  text: string;
}

/** A strict SRT reader: numbered blocks, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, text lines. */
export function parseSrt(srt: string): SrtCue[] {
  const t = (s: string) => {
    const m = /^(\d{2}):(\d{2}):(\d{2}),(\d{3})$/.exec(s);
    if (!m) throw new Error(`bad SRT time "${s}"`);
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
  };
  return srt
    .trim()
    .split(/\r?\n\r?\n/)
    .map((block) => {
      const [index, times, ...text] = block.split(/\r?\n/);
      const [a, b] = (times ?? "").split(" --> ");
      if (!/^\d+$/.test(index ?? "") || !a || !b) throw new Error(`bad SRT block:\n${block}`);
      return { index: Number(index), start: t(a), end: t(b), text: text.join("\n") };
    });
}
