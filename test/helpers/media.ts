/**
 * Deterministic test media, generated with espeak-ng, sox and ffmpeg and cached under
 * <repo>/.cache/fixtures (keyed by the parameters, so a second run costs nothing).
 *
 *   makeSpeechWav("hello world")            16 kHz mono 16-bit WAV of synthetic speech
 *   makeSpeechWav("hello", 5)               … padded (or cut) to exactly 5 s
 *   makeSilence(3)                          3 s of digital silence, 16 kHz mono WAV
 *   makeVideo({ seconds: 2 })               H.264/AAC MP4, testsrc2 picture + 440 Hz sine
 *   makeVideo({ seconds: 2, rotate: 90 })   … with a display-matrix rotation
 *   makeVideo({ seconds: 4, speech: "…" })  … with spoken audio instead of the sine
 *   makeAudioWithCover(jfkMp3)              MP3 copy carrying an attached_pic cover image
 *   transcode(file, ".m4a")                 any fixture re-encoded into another container
 *   muxTalk(audio, out, picture)            speech under a lavfi picture (sync; cached by path)
 *
 * Every function returns an absolute path to a file that must be treated as read-only (copy it
 * before changing it). The real recordings kept in the repository: TEST_MEDIA.jfkWav / .jfkMp3, or
 * fixtureMedia(name) and fixtureModel(name) for any file in test/fixtures/media and /models.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, renameSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { projectRoot } from "../../config/loader.js";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** The repository root: projectRoot(), not this file's place, as the compiled benches run these helpers from dist/. */
export const REPO_ROOT = projectRoot();
export const FIXTURE_DIR = path.join(REPO_ROOT, ".cache", "fixtures");
/** A recording kept in the repository (origin and licence: test/fixtures/media/README.md). */
export const fixtureMedia = (name: string) => path.join(REPO_ROOT, "test", "fixtures", "media", name);
/** A model file kept in the repository (test/fixtures/models/README.md). */
export const fixtureModel = (name: string) => path.join(REPO_ROOT, "test", "fixtures", "models", name);
export const TEST_MEDIA = { jfkWav: fixtureMedia("jfk.wav"), jfkMp3: fixtureMedia("jfk.mp3") };

// Bump when a generator changes so stale cached files are not reused.
const GENERATOR_VERSION = 2;
const BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"];

/**
 * Returns the cached file for `params`, creating it with `make(tmpPath)` when missing. Writes go
 * to a temporary name and are renamed into place, so parallel test workers never see half a file.
 */
async function cached(
  kind: string,
  params: unknown,
  ext: string,
  make: (out: string, tmp: string) => Promise<void>,
): Promise<string> {
  const hash = createHash("sha256")
    .update(JSON.stringify([GENERATOR_VERSION, kind, params]))
    .digest("hex")
    .slice(0, 16);
  const file = path.join(FIXTURE_DIR, `${kind}-${hash}${ext}`);
  if (existsSync(file)) return file;
  await mkdir(FIXTURE_DIR, { recursive: true });
  // Scratch space inside the fixture folder keeps the final rename on one file system.
  const tmp = await mkdtemp(path.join(FIXTURE_DIR, ".tmp-"));
  try {
    const out = path.join(tmp, `out${ext}`);
    await make(out, tmp);
    await rename(out, file);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return file;
}

const ffmpeg = (args: string[]) =>
  exec("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args], { maxBuffer: 16 << 20 });

export interface SpeechOptions {
  /** espeak-ng voice, e.g. "en-us", "en+f3", "en-gb+m3". Default "en-us". */
  voice?: string;
  /** Words per minute. Default 160. */
  speed?: number;
}

/** Synthetic speech of `text` as a 16 kHz mono 16-bit WAV; with `seconds`, padded/cut to that length. */
export function makeSpeechWav(text: string, seconds?: number, opts: SpeechOptions = {}): Promise<string> {
  const voice = opts.voice ?? "en-us";
  const speed = opts.speed ?? 160;
  return cached("speech", { text, seconds, voice, speed }, ".wav", async (out, tmp) => {
    const raw = path.join(tmp, "espeak.wav");
    await exec("espeak-ng", ["-v", voice, "-s", String(speed), "-w", raw, "--", text]);
    const shape = seconds === undefined ? [] : ["pad", "0", String(seconds), "trim", "0", String(seconds)];
    // -D: no dither, so the same text always gives the same bytes.
    await exec("sox", ["-D", raw, "-r", "16000", "-c", "1", "-b", "16", out, ...shape]);
  });
}

/** `seconds` of silence as a 16 kHz mono 16-bit WAV. */
export function makeSilence(seconds: number): Promise<string> {
  return cached("silence", { seconds }, ".wav", async (out) => {
    await exec("sox", ["-D", "-n", "-r", "16000", "-c", "1", "-b", "16", out, "trim", "0", String(seconds)]);
  });
}

/** A quiet 300 Hz tone as an 8 kb/s mono MP3 of `seconds`: long files that are quick to make and read. */
export function makeToneMp3(seconds: number): Promise<string> {
  return cached("tone8k", { seconds }, ".mp3", async (out) => {
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=300:sample_rate=8000:duration=${seconds}`,
      "-af",
      "volume=0.05",
      "-ac",
      "1",
      "-c:a",
      "libmp3lame",
      "-b:a",
      "8k",
      ...BITEXACT,
      out,
    ]);
  });
}

export interface VideoOptions {
  seconds: number;
  /** Default 320×240. */
  width?: number;
  height?: number;
  /** Frames per second. Default 25. */
  fps?: number;
  /** Default true: a 440 Hz sine (or `speech`) on a 44.1 kHz mono AAC track. */
  withAudio?: boolean;
  /** Spoken audio (espeak-ng) instead of the sine; padded with silence to `seconds`. */
  speech?: string;
  /** Display rotation in degrees clockwise, stored as metadata (the pixels are not turned). */
  rotate?: 0 | 90 | 180 | 270;
  /** Container. Default ".mp4" (H.264/AAC); ".webm" uses VP9/Opus, ".mkv" H.264/AAC. */
  ext?: ".mp4" | ".mov" | ".mkv" | ".webm";
}

/** A test-pattern video (ffmpeg testsrc2) with optional audio and rotation. */
export function makeVideo(opts: VideoOptions): Promise<string> {
  const p = { width: 320, height: 240, fps: 25, withAudio: true, rotate: 0, ext: ".mp4", ...opts };
  return cached("video", p, p.ext, async (out) => {
    const inputs = ["-f", "lavfi", "-i", `testsrc2=size=${p.width}x${p.height}:rate=${p.fps}:duration=${p.seconds}`];
    if (p.withAudio && p.speech) inputs.push("-i", await makeSpeechWav(p.speech, p.seconds));
    else if (p.withAudio)
      inputs.push("-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${p.seconds}`);
    const webm = p.ext === ".webm";
    const video = webm
      ? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"]
      : ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-threads", "1"];
    const audio = !p.withAudio
      ? ["-an"]
      : webm
        ? ["-c:a", "libopus", "-b:a", "48k", "-ac", "1"]
        : ["-c:a", "aac", "-b:a", "64k", "-ac", "1"];
    if (!p.rotate)
      return void (await ffmpeg([...inputs, ...video, ...audio, "-t", String(p.seconds), ...BITEXACT, out]));
    const plain = path.join(path.dirname(out), `plain${p.ext}`);
    await ffmpeg([...inputs, ...video, ...audio, "-t", String(p.seconds), ...BITEXACT, plain]);
    await setRotation(plain, out, p.rotate);
  });
}

/**
 * Copies `from` to `to` with a display rotation of `degrees` clockwise. ffmpeg versions disagree
 * on which way the old "rotate" tag turns, so the result is read back and the other direction
 * used when needed.
 */
async function setRotation(from: string, to: string, degrees: number): Promise<void> {
  for (const tag of [degrees, (360 - degrees) % 360]) {
    await ffmpeg(["-i", from, "-map", "0", "-c", "copy", "-metadata:s:v:0", `rotate=${tag}`, to]);
    const { stdout } = await exec("ffprobe", [
      "-v",
      "error",
      "-select_streams",
      "v:0",
      "-print_format",
      "json",
      "-show_streams",
      to,
    ]);
    const stream = JSON.parse(stdout).streams?.[0] ?? {};
    const matrix = (stream.side_data_list ?? []).find((d: any) => typeof d.rotation === "number");
    // ffprobe's display-matrix angle is counter-clockwise; the legacy tag is clockwise.
    const cw = matrix ? -matrix.rotation : Number(stream.tags?.rotate ?? 0);
    if (((cw % 360) + 360) % 360 === degrees) return;
  }
  throw new Error(`this ffmpeg cannot write a ${degrees}° display rotation`);
}

/** An MP3 copy of `audioFile` with a small PNG cover as an attached picture (like a podcast). */
export async function makeAudioWithCover(audioFile: string): Promise<string> {
  const source = await contentHash(audioFile);
  return cached("cover", { source }, ".mp3", async (out, tmp) => {
    const cover = path.join(tmp, "cover.png");
    await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64:duration=1", "-frames:v", "1", cover]);
    await ffmpeg([
      "-i",
      audioFile,
      "-i",
      cover,
      "-map",
      "0:a",
      "-map",
      "1:v",
      "-c:a",
      "libmp3lame",
      "-b:a",
      "64k",
      "-c:v",
      "png",
      "-disposition:v:0",
      "attached_pic",
      "-id3v2_version",
      "3",
      ...BITEXACT,
      out,
    ]);
  });
}

/** `file` re-encoded into the container of `ext` (".mp3", ".m4a", ".ogg", ".opus", ".flac", ".wav" …). */
export async function transcode(file: string, ext: string): Promise<string> {
  const source = await contentHash(file);
  return cached("transcode", { source, ext }, ext, async (out) => {
    await ffmpeg(["-i", file, ...BITEXACT, out]);
  });
}

async function contentHash(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex")
    .slice(0, 16);
}

/**
 * An H.264/AAC MP4 of `audio` under a lavfi `picture` (e.g. "testsrc2=s=1280x720:r=30"), as long as
 * the audio, written to `out` once (a .part file renamed, so a killed run leaves nothing half made).
 * Synchronous, for fixtures that tests build in beforeAll from sentence-timed speech.
 */
export function muxTalk(audio: string, out: string, picture: string, extra: string[] = []): string {
  if (existsSync(out)) return out;
  execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      picture,
      "-i",
      audio,
      "-shortest",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      ...extra,
      "-c:a",
      "aac",
      "-pix_fmt",
      "yuv420p",
      out + ".part.mp4",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  renameSync(out + ".part.mp4", out);
  return out;
}
