/**
 * Loudness per second of a recording, for the "energy" signal. ffmpeg decodes the audio at a low
 * sample rate (cheap even for hours of audio) and astats prints one RMS level per second.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { SAFE_INPUT, runFfmpeg } from "../../daemon/render/render.js";

export async function measureLoudness(
  file: string,
  opts: { workdir: string; signal?: AbortSignal; duration?: number; onProgress?: (pct: number) => void },
): Promise<number[]> {
  const out = path.join(opts.workdir, "loudness.txt");
  await runFfmpeg(
    [
      ...SAFE_INPUT,
      "-vn",
      "-i",
      file,
      "-af",
      [
        "aresample=8000",
        "aformat=channel_layouts=mono",
        "asetnsamples=n=8000:p=0",
        "astats=metadata=1:reset=1",
        "ametadata=mode=print:key=lavfi.astats.Overall.RMS_level:file=loudness.txt",
      ].join(","),
      "-f",
      "null",
      "-",
    ],
    { signal: opts.signal, duration: opts.duration, onProgress: opts.onProgress, cwd: opts.workdir },
  );
  const text = await readFile(out, "utf8");
  const levels: number[] = [];
  let second = 0;
  for (const line of text.split("\n")) {
    const frame = /pts_time:([\d.]+)/.exec(line);
    if (frame) second = Math.floor(Number(frame[1]));
    const level = /RMS_level=(-?[\d.]+|-inf)/.exec(line);
    if (level) levels[second] = level[1] === "-inf" ? -90 : Math.max(-90, Number(level[1]));
  }
  for (let i = 0; i < levels.length; i++) if (levels[i] === undefined) levels[i] = -90;
  return levels;
}
