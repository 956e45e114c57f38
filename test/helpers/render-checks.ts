// What a platform checks in a posted clip, read with ffmpeg and ffprobe: integrated loudness and true
// peak (EBU R128, the ebur128 filter), the H.264 profile and colour tags, the VBV ceiling, and how
// far apart the two channels are.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";

const runAsync = promisify(execFile);
const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 }).toString();

/** Integrated loudness (LUFS) and true peak (dBTP) of a file's sound. */
export function loudnessOf(file: string): { lufs: number; truePeak: number } {
  const r = spawnSync(
    "ffmpeg",
    ["-hide_banner", "-nostats", "-i", file, "-af", "ebur128=peak=true", "-f", "null", "-"],
    {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    },
  );
  if (r.status !== 0) throw new Error(`ebur128 failed: ${r.stderr.slice(-500)}`);
  const summary = r.stderr.slice(r.stderr.lastIndexOf("Summary:"));
  const lufs = Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)?.[1]);
  const peak = /True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS/.exec(summary)?.[1];
  return { lufs, truePeak: peak === "-inf" ? -120 : Number(peak) };
}

/** The video stream's profile and colour tags, as ffprobe reads them. */
export function videoTags(file: string): Record<string, string> {
  const out = JSON.parse(
    run("ffprobe", [
      "-v",
      "error",
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=profile,color_space,color_primaries,color_transfer,color_range",
      "-of",
      "json",
      file,
    ]),
  ) as { streams: Array<Record<string, string>> };
  return out.streams[0] ?? {};
}

/**
 * Whether the video keeps to a VBV ceiling of `kbps` with a buffer of `bufferKbits`: a leaky bucket
 * filled at the ceiling rate, never above the buffer, that each frame empties by its size, must
 * never go below zero (the buffer starts 90% full, as x264's does). Also gives the mean rate.
 */
export function vbvCheck(file: string, kbps: number, bufferKbits: number): { ok: boolean; meanKbps: number } {
  const text = run("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "packet=size,duration_time",
    "-of",
    "csv=p=0",
    file,
  ]);
  let level = 0.9 * bufferKbits * 1000;
  let ok = true;
  let bits = 0;
  let seconds = 0;
  for (const line of text.trim().split("\n")) {
    const [size, dur] = line.split(",").map(Number);
    const d = Number.isFinite(dur) && dur! > 0 ? dur! : 1 / 30;
    level = Math.min(bufferKbits * 1000, level + kbps * 1000 * d);
    level -= size! * 8;
    bits += size! * 8;
    seconds += d;
    // A little slack for the container's rounding of frame durations.
    if (level < -0.02 * bufferKbits * 1000) ok = false;
  }
  return { ok, meanKbps: bits / 1000 / Math.max(seconds, 1e-6) };
}

/**
 * Level (dB) of each channel over 100 ms windows where either speaks, and the share of those windows
 * in which one channel is more than `leanDb` louder than the other.
 */
export function channelLean(file: string, leanDb = 12): number {
  const r = spawnSync(
    "ffmpeg",
    [
      "-hide_banner",
      "-nostats",
      "-i",
      file,
      "-af",
      "aresample=48000,asetnsamples=n=4800:p=0,astats=metadata=1:reset=1,ametadata=mode=print:file=-",
      "-f",
      "null",
      "-",
    ],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  );
  const rms = (ch: number) =>
    [...r.stdout.matchAll(new RegExp(`lavfi\\.astats\\.${ch}\\.RMS_level=(-?[\\d.]+|-inf)`, "g"))].map((m) =>
      m[1] === "-inf" ? -120 : Number(m[1]),
    );
  const left = rms(1);
  const right = rms(2);
  let voiced = 0;
  let lean = 0;
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (Math.max(left[i]!, right[i]!) < -50) continue;
    voiced++;
    if (Math.abs(left[i]! - right[i]!) > leanDb) lean++;
  }
  return voiced ? lean / voiced : 0;
}

/**
 * Mean absolute difference (0–255) of two frames (video `a` at `atA` s, `b` at `atB` s), in the top
 * band where the hook box sits. ffmpeg runs asynchronously: a synchronous child would stall the
 * in-process server and the client's keep-alive timers alike, and the next request could meet a
 * socket the server closes at that moment (ECONNRESET on a loaded machine).
 */
export async function hookBandDiff(a: string, atA: number, b: string, atB: number): Promise<number> {
  const band = async (file: string, at: number) =>
    (
      await runAsync(
        "ffmpeg",
        [
          "-v",
          "error",
          "-ss",
          String(at),
          "-i",
          file,
          "-frames:v",
          "1",
          "-vf",
          "crop=iw:ih*0.12:0:ih*0.05,scale=270:-2,format=gray",
          "-f",
          "rawvideo",
          "-",
        ],
        { encoding: "buffer" },
      )
    ).stdout;
  const [x, y] = await Promise.all([band(a, atA), band(b, atB)]);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i]! - y[i]!);
  return sum / x.length;
}
