/**
 * Bare ffmpeg's side of bench/render: the same one-pass graph clipd's render does, written by hand.
 * Each piece is its own input seeked with `-ss` (frame-accurate, as in clipd), trimmed and joined;
 * a crop that moves at each of the four scenes; scale to 1080×1920; libass captions from an ASS
 * file; the conversion to BT.709 at the end of the graph and its tags; H.264 High at the given
 * preset and CRF (or a bitrate budget) under the same VBV ceiling, with ffmpeg's own thread
 * defaults; AAC audio. With `loudness`, the same two passes clipd makes: a first ffmpeg reads the
 * pieces' loudness (loudnorm's JSON) and channel levels, the render's loudnorm then uses them.
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
  /** A bitrate budget (kbit/s, `-b:v`) instead of the CRF: the preset sweep compares at equal size. */
  bitrateKbps?: number;
  /** The VBV ceiling (kbit/s; the buffer holds two seconds), as clipd's peakRateArgs; 0: none (for a reference). */
  peakKbps?: number;
  /** Grain added to the picture before the captions (ffmpeg's `noise` strength, 0–100): the encode part's content. */
  grain?: number;
  /** Integrated loudness (LUFS) under a true-peak ceiling: the measuring pass, then loudnorm in the render. */
  loudness?: { lufs: number; truePeak: number; headroom: number };
}

const n3 = (v: number) => v.toFixed(3);

/** A crop x that moves at 15, 30 and 45 s, as a per-scene crop plan does. */
const CROP_X = "(iw-ow)*if(lt(t,15),0.3,if(lt(t,30),0.5,if(lt(t,45),0.7,0.5)))";

/** The measuring pass's figures, as loudnorm prints them. */
type Measured = Record<"input_i" | "input_tp" | "input_lra" | "input_thresh" | "target_offset", string>;

export function bareArgs(o: BareOptions, measured?: Measured): string[] {
  const inputs = o.pieces.flatMap((p) => ["-ss", n3(p.start), "-t", n3(p.end - p.start + 0.1), "-i", o.source]);
  const parts = o.pieces.flatMap((p, i) => [
    `[${i}:v:0]trim=duration=${n3(p.end - p.start)},setpts=PTS-STARTPTS,fps=30,format=yuv420p[v${i}]`,
    `[${i}:a:0]atrim=duration=${n3(p.end - p.start)},asetpts=PTS-STARTPTS,aresample=48000[a${i}]`,
  ]);
  const labels = o.pieces.map((_, i) => `[v${i}][a${i}]`).join("");
  parts.push(`${labels}concat=n=${o.pieces.length}:v=1:a=1[vj][aj]`);
  parts.push(
    `[vj]crop=w=ih*9/16:h=ih:x='${CROP_X}':y=0,scale=1080:1920,setsar=1,` +
      `${o.grain ? `noise=alls=${o.grain}:allf=t,` : ""}ass=filename=${o.ass},` +
      "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[vout]",
  );
  const l = o.loudness;
  parts.push(
    measured && l
      ? `[aj]loudnorm=I=${l.lufs}:TP=${l.truePeak - l.headroom}:LRA=11:measured_I=${measured.input_i}:` +
          `measured_TP=${measured.input_tp}:measured_LRA=${measured.input_lra}:` +
          `measured_thresh=${measured.input_thresh}:offset=${measured.target_offset}:linear=true,` +
          "aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[aout]"
      : "[aj]anull[aout]",
  );
  const peak = o.peakKbps ?? 12_000;
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
    "[aout]",
    "-t",
    n3(total),
    ...(o.extra ?? []),
    "-c:v",
    "libx264",
    "-preset",
    o.preset,
    ...(o.bitrateKbps ? ["-b:v", `${o.bitrateKbps}k`] : ["-crf", String(o.crf)]),
    ...(peak ? ["-maxrate", `${peak}k`, "-bufsize", `${peak * 2}k`] : []),
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-colorspace",
    "bt709",
    "-color_primaries",
    "bt709",
    "-color_trc",
    "bt709",
    "-color_range",
    "tv",
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

/**
 * The first pass, as clipd's measureClipAudio makes it: the pieces' audio only, loudnorm's JSON and
 * each channel's level per 100 ms (the split-stereo test), in one ffmpeg.
 */
function measureArgs(o: BareOptions): string[] {
  const l = o.loudness!;
  const inputs = o.pieces.flatMap((p) => ["-ss", n3(p.start), "-t", n3(p.end - p.start + 0.1), "-vn", "-i", o.source]);
  const chains = o.pieces.map(
    (p, i) =>
      `[${i}:a:0]atrim=duration=${n3(p.end - p.start)},asetpts=PTS-STARTPTS,` +
      `aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[m${i}]`,
  );
  const graph =
    `${chains.join(";")};${o.pieces.map((_, i) => `[m${i}]`).join("")}concat=n=${o.pieces.length}:v=0:a=1,` +
    `asplit=2[ln][st];[ln]loudnorm=I=${l.lufs}:TP=${l.truePeak}:LRA=11:print_format=json[o1];` +
    "[st]asetnsamples=n=4800:p=0,astats=metadata=1:reset=1,ametadata=mode=print:file=bare-levels.txt[o2]";
  const tail = ["-map", "[o1]", "-f", "null", "-", "-map", "[o2]", "-f", "null", "-"];
  return ["-hide_banner", "-nostdin", "-y", "-v", "info", ...inputs, "-filter_complex", graph, ...tail];
}

/** Children's user + system seconds from bash's `times` (its last line: "0m12.340s 0m0.560s"). */
const cpuOf = (stdout: string) =>
  [...(stdout.trim().split("\n").at(-1) ?? "").matchAll(/(\d+)m([0-9.]+)s/g)]
    .map((m) => Number(m[1]) * 60 + Number(m[2]))
    .reduce((a, b) => a + b, 0);

/** Runs the bare graph (and with `loudness` its measuring pass first): wall and ffmpeg's CPU seconds. */
export async function runBare(o: BareOptions): Promise<{ wall: number; cpu: number }> {
  const t = performance.now();
  let measured: Measured | undefined;
  let cpu = 0;
  if (o.loudness) {
    const m = await exec("bash", ["-c", '"$@" 2>&1 && times', "bash", "ffmpeg", ...measureArgs(o)], {
      cwd: o.cwd,
      maxBuffer: 64 << 20,
    });
    const at = m.stdout.lastIndexOf('"input_i"');
    measured = JSON.parse(m.stdout.slice(m.stdout.lastIndexOf("{", at), m.stdout.indexOf("}", at) + 1)) as Measured;
    cpu += cpuOf(m.stdout);
  }
  const { stdout } = await exec("bash", ["-c", '"$@" && times', "bash", "ffmpeg", ...bareArgs(o, measured)], {
    cwd: o.cwd,
    maxBuffer: 16 << 20,
  });
  return { wall: (performance.now() - t) / 1000, cpu: cpu + cpuOf(stdout) };
}

/** The H.264 profile of a file's first video stream, as ffprobe names it. */
export async function profileOf(file: string): Promise<string> {
  const { stdout } = await exec("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=profile",
    "-of",
    "default=nw=1:nk=1",
    file,
  ]);
  return stdout.trim();
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
