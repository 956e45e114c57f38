/**
 * bench/render's own source: a 1920×1080 video (testsrc2, its hue turned every 15 s so the scene
 * cut finds four scenes) with espeak-ng speech padded to the full length, and the words' times
 * (each sentence's length shared out over its words by their letters). Made once, cached under
 * .cache/bench; generating it is not measured.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export const FPS = 30;

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

export interface Word {
  text: string;
  start: number;
  end: number;
  confidence: number;
}
export interface Source {
  video: string;
  words: Word[];
  seconds: number;
}

export const probeSeconds = async (file: string) =>
  Number((await exec("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])).stdout);

/** The cached source of `seconds` and its word times. */
export async function makeSource(dir: string, seconds: number): Promise<Source> {
  await mkdir(dir, { recursive: true });
  const words: Word[] = [];
  const wavs: string[] = [];
  let t = 0.3;
  for (let i = 0; i < TEXT.length && t < seconds - 1; i++) {
    const line = TEXT[i]!; // i < TEXT.length
    const wav = path.join(dir, `s${i}.wav`);
    if (!existsSync(wav)) await exec("espeak-ng", ["-v", "en-us", "-s", "165", "-w", wav, line]);
    const len = await probeSeconds(wav);
    const ws = line.split(" ");
    const chars = ws.reduce((a, w) => a + w.length + 1, 0);
    let u = t + 0.1;
    for (const w of ws) {
      const d = ((len - 0.25) * (w.length + 1)) / chars;
      if (u + d < seconds)
        words.push({ text: w, start: +u.toFixed(3), end: +(u + d * 0.9).toFixed(3), confidence: 0.9 });
      u += d;
    }
    wavs.push(wav);
    t += len + 0.3;
  }
  const video = path.join(dir, `source-${seconds}s.mp4`);
  if (!existsSync(video)) {
    const inputs = wavs.flatMap((w) => ["-i", w]);
    const audio = [
      ...wavs.map((_, i) => `[${i + 1}:a]aresample=48000,apad=pad_dur=0.3[a${i}]`),
      `${wavs.map((_, i) => `[a${i}]`).join("")}concat=n=${wavs.length}:v=0:a=1,apad,atrim=0:${seconds}[aout]`,
    ].join(";");
    const picture = `[0:v]hue=H=2*PI*floor(t/15)/4:s=1.4[vout]`;
    await exec("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `testsrc2=s=1920x1080:r=${FPS}:d=${seconds}`,
      ...inputs,
      "-filter_complex",
      `${picture};${audio}`,
      "-map",
      "[vout]",
      "-map",
      "[aout]",
      "-t",
      String(seconds),
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-g",
      "250",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-b:a",
      "128k",
      video + ".part.mp4",
    ]);
    await rename(video + ".part.mp4", video);
  }
  return { video, words, seconds };
}
