/**
 * The one low-resolution decode of a clip's piece that the scene analysis makes (focus.ts) and the
 * face analysis shares (reframe.ts): ffmpeg's scene score (`select='gt(scene,T)'` + `showinfo`)
 * marks the hard cuts, and a few raw frames a second come down the pipe as PPM (a header with the
 * size, then RGB), so nothing is compressed only to be decoded again.
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { ffmpegCommand, spawnFailure } from "../../daemon/ops/os-packages.js";
import { SAFE_INPUT } from "../../daemon/render/render.js";
import type { Piece } from "./clip.js";

const execFileAsync = promisify(execFile);

export interface Sampled {
  /** Scene cuts, seconds from the piece start. */
  cuts: number[];
  frames: RawFrame[];
}

/** One sampled frame: raw RGB at the decode's size, `t` seconds from the piece start. */
export interface RawFrame {
  t: number;
  width: number;
  height: number;
  rgb: Buffer;
}

/** How a piece is sampled: the analysis of faces (reframe.ts) asks for more and larger frames. */
export interface SampleOptions {
  /** Frames a second at most (default 2), and at most `max` a piece (default 120). */
  rate?: number;
  max?: number;
  /** Width of the sampled frames (default 320). */
  width?: number;
  /** Each frame as it is decoded; the decode waits on the promise (back-pressure). */
  onFrame?: (f: RawFrame) => Promise<void> | void;
  /** Keep one frame in this many for the attention crop (default 1: all). */
  keepEvery?: number;
  /**
   * The scene score's own width, with one decoding thread: the score runs on every frame at this
   * size and only the sampled frames are scaled to `width` (the face analysis: a third of its decode's
   * processor time). Unset: every frame is scaled to `width` and scored there.
   */
  sceneWidth?: number;
}

/** Splits PPM frames (P6) out of a pipe: each one's header says its size. */
function ppmReader(onFrame: (w: number, h: number, rgb: Buffer) => void): (chunk: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(buf.subarray(0, 40).toString("latin1"));
      if (!m) return;
      const size = Number(m[1]) * Number(m[2]) * 3;
      if (buf.length < m[0].length + size) return;
      onFrame(Number(m[1]), Number(m[2]), Buffer.from(buf.subarray(m[0].length, m[0].length + size)));
      buf = buf.subarray(m[0].length + size);
    }
  };
}

/** Decodes one piece once: scene cuts from showinfo, raw samples from the pipe. */
export function samplePiece(
  source: string,
  p: Piece,
  threshold: number,
  signal?: AbortSignal,
  so: SampleOptions = {},
): Promise<Sampled> {
  const len = p.end - p.start;
  // About 2 samples a second, at most ~120 per piece (memory stays small for long clips).
  const rate = Math.min(so.rate ?? 2, (so.max ?? 120) / Math.max(len, 1));
  const scale = (w: number) => `scale=${w}:-2:flags=fast_bilinear`;
  const score = `select='gt(scene\\,${threshold})',showinfo,nullsink`;
  const graph = so.sceneWidth
    ? `[0:v]split[a][b];[a]${scale(so.sceneWidth)},${score};[b]fps=${rate.toFixed(4)},${scale(so.width ?? 320)}[s]`
    : `[0:v]${scale(so.width ?? 320)},split[a][b];[a]${score};[b]fps=${rate.toFixed(4)}[s]`;
  const args = [
    "-hide_banner",
    "-nostdin",
    ...(so.sceneWidth ? ["-threads", "1"] : []),
    "-flags2",
    "fast",
    "-skip_loop_filter",
    "all",
    ...SAFE_INPUT,
    "-ss",
    p.start.toFixed(3),
    "-t",
    len.toFixed(3),
    "-i",
    source,
    "-an",
    "-sn",
    "-dn",
    "-filter_complex",
    graph,
    "-map",
    "[s]",
    "-f",
    "image2pipe",
    "-c:v",
    "ppm",
    "-",
  ];
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const child = spawn(ffmpegCommand(), args, { stdio: ["ignore", "pipe", "pipe"] });
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    const frames: Sampled["frames"] = [];
    const cuts: number[] = [];
    let errTail = "";
    let partial = "";
    let n = 0;
    let hook: Promise<unknown> = Promise.resolve();
    const read = ppmReader((width, height, rgb) => {
      const f = { t: n / rate, width, height, rgb };
      if (n++ % (so.keepEvery ?? 1) === 0) frames.push(f);
      if (!so.onFrame) return;
      // The decode waits while the frame's consumer is busy, so frames do not pile up in memory.
      const done = so.onFrame(f);
      if (done) {
        child.stdout.pause();
        hook = Promise.all([hook, done]).finally(() => child.stdout.resume());
      }
    });
    child.stdout.on("data", read);
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      errTail = (errTail + s).slice(-2000);
      const lines = (partial + s).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const m = /Parsed_showinfo.*\bpts_time:\s*([0-9.]+)/.exec(line);
        if (m) cuts.push(Number(m[1]));
      }
    });
    child.on("error", (err) => reject(spawnFailure(ffmpegCommand(), err)));
    child.on("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason);
      if (code !== 0) return reject(new Error(`scene detection failed: ${errTail.trim().split("\n").at(-1) ?? ""}`));
      hook.then(() => resolve({ cuts, frames }), reject);
    });
  });
}

/** One 320-pixel frame at `t` of the source: an edge scene too short for the piece's samples. */
export async function frameAt(source: string, t: number, signal?: AbortSignal): Promise<RawFrame | undefined> {
  const args = [
    "-hide_banner",
    "-nostdin",
    "-v",
    "error",
    ...SAFE_INPUT,
    "-ss",
    t.toFixed(3),
    "-i",
    source,
    "-frames:v",
    "1",
    "-vf",
    "scale=320:-2",
    "-f",
    "image2pipe",
    "-c:v",
    "ppm",
    "-",
  ];
  const { stdout } = await execFileAsync(ffmpegCommand(), args, { encoding: "buffer", signal, maxBuffer: 8 << 20 });
  let frame: RawFrame | undefined;
  ppmReader((width, height, rgb) => {
    frame ??= { t, width, height, rgb };
  })(stdout);
  return frame;
}
