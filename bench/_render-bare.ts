/**
 * Bare ffmpeg's side of bench/render: the same one-pass graph clipd's render does, written by hand.
 * Each piece is its own input seeked with `-ss` (frame-accurate, as in clipd), trimmed and joined;
 * a crop that moves at each of the four scenes; scale to 1080×1920; libass captions from an ASS
 * file; H.264 High at the given preset and CRF with ffmpeg's own thread defaults; AAC audio.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

export interface BareOptions {
  source: string;
  pieces: Array<{ start: number; end: number }>;
  /** ASS file, relative to `cwd`. */
  ass: string;
  cwd: string;
  output: string;
  preset: string;
  crf: number;
  /** Extra flags before the output (threads). */
  extra?: string[];
}

const n3 = (v: number) => v.toFixed(3);

/** A crop x that moves at 15, 30 and 45 s, as a per-scene crop plan does. */
const CROP_X = "(iw-ow)*if(lt(t,15),0.3,if(lt(t,30),0.5,if(lt(t,45),0.7,0.5)))";

export function bareArgs(o: BareOptions): string[] {
  const inputs = o.pieces.flatMap((p) => ["-ss", n3(p.start), "-t", n3(p.end - p.start + 0.1), "-i", o.source]);
  const parts = o.pieces.flatMap((p, i) => [
    `[${i}:v:0]trim=duration=${n3(p.end - p.start)},setpts=PTS-STARTPTS,fps=30,format=yuv420p[v${i}]`,
    `[${i}:a:0]atrim=duration=${n3(p.end - p.start)},asetpts=PTS-STARTPTS,aresample=48000[a${i}]`,
  ]);
  const labels = o.pieces.map((_, i) => `[v${i}][a${i}]`).join("");
  parts.push(`${labels}concat=n=${o.pieces.length}:v=1:a=1[vj][aj]`);
  parts.push(`[vj]crop=w=ih*9/16:h=ih:x='${CROP_X}':y=0,scale=1080:1920,setsar=1,ass=filename=${o.ass}[vout]`);
  const total = o.pieces.reduce((a, p) => a + p.end - p.start, 0);
  return [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-v",
    "error",
    ...inputs,
    "-filter_complex",
    parts.join(";"),
    "-map",
    "[vout]",
    "-map",
    "[aj]",
    "-t",
    n3(total),
    ...(o.extra ?? []),
    "-c:v",
    "libx264",
    "-preset",
    o.preset,
    "-crf",
    String(o.crf),
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    "160k",
    "-ar",
    "48000",
    "-ac",
    "2",
    "-movflags",
    "+faststart",
    o.output,
  ];
}

/** Runs the bare graph: wall seconds, and ffmpeg's CPU seconds (user + system, from bash's `times`). */
export async function runBare(o: BareOptions): Promise<{ wall: number; cpu: number }> {
  const t = performance.now();
  const { stdout } = await exec("bash", ["-c", '"$@" && times', "bash", "ffmpeg", ...bareArgs(o)], {
    cwd: o.cwd,
    maxBuffer: 16 << 20,
  });
  const wall = (performance.now() - t) / 1000;
  // `times` prints the shell's user and system time, then its children's: "0m12.340s 0m0.560s".
  const secs = [...(stdout.trim().split("\n").at(-1) ?? "").matchAll(/(\d+)m([0-9.]+)s/g)].map(
    (m) => Number(m[1]) * 60 + Number(m[2]),
  );
  return { wall, cpu: secs.reduce((a, b) => a + b, 0) };
}

/** ffmpeg's `ssim` filter over the whole picture (All), `file` against `reference`. */
export async function ssim(file: string, reference: string): Promise<number> {
  const { stderr } = await exec(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-i", file, "-i", reference, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"],
    { maxBuffer: 16 << 20 },
  );
  const m = /SSIM .*All:([0-9.]+)/.exec(stderr);
  if (!m) throw new Error(`ssim: no result in ffmpeg's output: ${stderr.slice(-300)}`);
  return Number(m[1]);
}
