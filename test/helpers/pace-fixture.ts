// Speech with pauses of known length for the pace tests: espeak-ng reads each sentence, each is
// trimmed to its first and last sound and joined by digital silence of the given lengths, under a
// testsrc2 picture. The words get times spread over each sentence's known span. Cached by its
// parameters under .cache/fixtures.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { muxTalk, REPO_ROOT } from "./media.js";

export type W = { text: string; start: number; end: number; confidence: number };
export interface PaceFixture {
  video: string;
  words: W[];
  duration: number;
  /** Where each sentence starts (seconds). */
  starts: number[];
}

const sh = (cmd: string, args: string[], cwd?: string) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] }).toString();
export const seconds = (file: string) =>
  Number(sh("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]));

/** The sentences read with `pauses[i]` seconds of silence after sentence i and `lead` before and after. */
export function paceFixture(sentences: string[], pauses: number[], lead: number): PaceFixture {
  const id = createHash("sha1")
    .update(JSON.stringify([sentences, pauses, lead, "pace-v1"]))
    .digest("hex")
    .slice(0, 10);
  const dir = path.join(REPO_ROOT, ".cache", "fixtures", `pace-${id}`);
  mkdirSync(dir, { recursive: true });
  const silence = (name: string, len: number) => {
    const f = path.join(dir, name);
    if (!existsSync(f)) sh("sox", ["-D", "-n", "-r", "16000", "-c", "1", "-b", "16", f, "trim", "0", String(len)]);
    return f;
  };
  const parts = [silence("lead.wav", lead)];
  const words: W[] = [];
  const starts: number[] = [];
  let t = lead;
  sentences.forEach((s, i) => {
    const wav = path.join(dir, `s${i}.wav`);
    if (!existsSync(wav)) {
      sh("espeak-ng", ["-v", "en-us", "-s", "160", "-w", `${wav}.raw.wav`, s]);
      // Trimmed to its first and last sound, so the pauses between sentences are exactly `pauses`.
      const trim = ["silence", "1", "0.01", "1%"];
      const fmt = ["-r", "16000", "-c", "1", "-b", "16"];
      sh("sox", ["-D", `${wav}.raw.wav`, ...fmt, wav, ...trim, "reverse", ...trim, "reverse"]);
    }
    const len = seconds(wav);
    starts.push(t);
    const ws = s.split(" ");
    const chars = ws.reduce((a, w) => a + w.length, 0);
    let u = t;
    for (const w of ws) {
      const d = (len * w.length) / chars;
      words.push({ text: w, start: +u.toFixed(3), end: +(u + d).toFixed(3), confidence: 0.9 });
      u += d;
    }
    parts.push(wav);
    t += len;
    if (i < pauses.length) {
      parts.push(silence(`pause-${pauses[i]}.wav`, pauses[i]!));
      t += pauses[i]!;
    }
  });
  parts.push(silence("tail.wav", lead));
  const audio = path.join(dir, "speech.wav");
  if (!existsSync(audio)) sh("sox", ["-D", ...parts, audio]);
  const video = muxTalk(audio, path.join(dir, "talk.mp4"), "testsrc2=s=640x360:r=30");
  return { video, words, duration: seconds(video), starts };
}

/** The silences of at least `min` seconds in a rendered file, as silencedetect finds them at -40 dB. */
export function silencesOf(file: string, min = 0.05): Array<{ start: number; end: number }> {
  const r = spawnSync(
    "ffmpeg",
    ["-v", "info", "-nostats", "-i", file, "-af", `silencedetect=noise=-40dB:d=${min}`, "-f", "null", "-"],
    { encoding: "utf8" },
  );
  const starts = [...r.stderr.matchAll(/silence_start: (-?[\d.]+)/g)].map((m) => Math.max(0, Number(m[1])));
  const ends = [...r.stderr.matchAll(/silence_end: ([\d.]+)/g)].map((m) => Number(m[1]));
  // A silence running to the end of the file has a start and no end.
  return starts.map((start, i) => ({ start, end: ends[i] ?? seconds(file) }));
}
