/**
 * Speakers from a stereo recording with one voice per channel (a common podcast set-up: each
 * microphone recorded to its own side). Each word is labelled by the channel that is louder while
 * it is spoken: S1 for the left, S2 for the right. Only when the channels really differ: a mono
 * file, or a stereo mix where both voices sit in the middle, keeps one speaker (S1).
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { _runTool } from "../../daemon/render/audio.js";
import { ffprobePath } from "../../daemon/render/ffmpeg.js";
import { SAFE_INPUT, runFfmpeg } from "../../daemon/render/render.js";

const RATE = 4000;
const FRAME = 0.01;
/** A word whose channels differ by less than this (dB) tells nothing about who said it. */
const CLEAR_DB = 6;
/** Share of words that must be clearly on one side for the channels to count as one voice each. */
const CLEAR_SHARE = 0.6;

/** Level per 10 ms of each channel (dBFS), or undefined when the audio is not two channels. */
export async function channelLevels(
  file: string,
  opts: { workdir: string; signal?: AbortSignal },
): Promise<[Float32Array, Float32Array] | undefined> {
  const { stdout } = await _runTool(
    ffprobePath(),
    ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels", "-of", "csv=p=0", file],
    { signal: opts.signal },
  );
  if (Number(stdout.trim()) !== 2) return undefined;
  const out = path.join(opts.workdir, "channels.s16");
  await runFfmpeg([...SAFE_INPUT, "-vn", "-i", file, "-ac", "2", "-ar", String(RATE), "-f", "s16le", out], {
    signal: opts.signal,
    cwd: opts.workdir,
  });
  const buf = await readFile(out);
  await rm(out, { force: true });
  const per = Math.round(RATE * FRAME);
  const frames = Math.floor(buf.byteLength / 4 / per);
  const levels: [Float32Array, Float32Array] = [new Float32Array(frames), new Float32Array(frames)];
  for (let f = 0; f < frames; f++) {
    for (let ch = 0; ch < 2; ch++) {
      let sum = 0;
      for (let i = 0; i < per; i++) {
        const v = buf.readInt16LE(((f * per + i) * 2 + ch) * 2) / 32768;
        sum += v * v;
      }
      levels[ch]![f] = Math.max(-90, 10 * Math.log10(sum / per + 1e-12));
    }
  }
  return levels;
}

/** Mean power (dB) of a channel over [start, end]. */
function levelOver(ch: Float32Array, start: number, end: number): number {
  const a = Math.max(0, Math.floor(start / FRAME));
  const b = Math.min(ch.length, Math.max(a + 1, Math.ceil(end / FRAME)));
  let sum = 0;
  for (let i = a; i < b; i++) sum += 10 ** (ch[i]! / 10);
  return b > a ? 10 * Math.log10(sum / (b - a) + 1e-12) : -90;
}

/**
 * One speaker label per word (S1 left, S2 right), or undefined when the channels do not carry one
 * voice each. A word spoken with no clear side takes the speaker of the word before it.
 */
export function speakersByChannel(
  words: Array<{ start: number; end: number }>,
  levels: [Float32Array, Float32Array],
): string[] | undefined {
  if (!words.length) return undefined;
  const diffs = words.map((w) => levelOver(levels[0], w.start, w.end) - levelOver(levels[1], w.start, w.end));
  const clear = diffs.filter((d) => Math.abs(d) >= CLEAR_DB);
  if (clear.length < CLEAR_SHARE * words.length) return undefined;
  // Both sides must speak: one voice panned to one side is still one speaker.
  if (!clear.some((d) => d > 0) || !clear.some((d) => d < 0)) return undefined;
  let last = clear[0]! > 0 ? "S1" : "S2";
  return diffs.map((d) => (Math.abs(d) >= CLEAR_DB ? (last = d > 0 ? "S1" : "S2") : last));
}
