/**
 * One ffmpeg pass turns the source into 16 kHz mono WAV and finds its silences on that same
 * signal (silencedetect sits after the resampler in the filter chain). The old way read the audio
 * twice, and reported nothing while silencedetect ran, so a long recording sat on "finding
 * silences". ffmpeg's own `-progress pipe:1` reports (`out_time_us`) drive the fraction.
 */
import { open } from "node:fs/promises";
import { runFfmpeg, SAFE_INPUT_ARGS } from "../../daemon/render/ffmpeg.js";
import { parseSilences, type Span } from "../../daemon/render/audio.js";

/** Same thresholds as the shared detectSilences, so chunk cuts land where they did. */
const NOISE_DB = -35;
const MIN_SILENCE = 0.3;

export async function decodeAndFindSilences(
  input: string,
  output: string,
  opts: { duration?: number; signal: AbortSignal; onFraction?: (f: number) => void },
): Promise<Span[]> {
  const silenceLines: string[] = [];
  const args = [
    "-v",
    "info",
    "-nostats",
    "-y",
    ...SAFE_INPUT_ARGS,
    "-i",
    input,
    "-vn",
    "-sn",
    "-dn",
    "-af",
    `aresample=16000,aformat=channel_layouts=mono,silencedetect=noise=${NOISE_DB}dB:d=${MIN_SILENCE}`,
    "-ac",
    "1",
    "-ar",
    "16000",
    "-c:a",
    "pcm_s16le",
    "-f",
    "wav",
    "-progress",
    "pipe:1",
    output,
  ];
  await runFfmpeg(args, {
    signal: opts.signal,
    maxStdout: 0,
    // Only silencedetect's lines are kept, so a long recording's log stays bounded by its silences.
    onStderrLine: (line) => {
      if (line.includes("silence_") && silenceLines.length < 200_000) silenceLines.push(line);
    },
    onStdoutLine: (line) => {
      const m = /^out_time_us=(\d+)/.exec(line);
      if (m && opts.duration && opts.onFraction) opts.onFraction(Math.min(1, Number(m[1]) / 1e6 / opts.duration));
    },
  });
  return parseSilences(silenceLines.join("\n"), opts.duration);
}

/**
 * The length of the decoded 16 kHz mono 16-bit WAV, from its bytes on disk: what the audio really
 * lasts, whatever the source's container header claimed (issue 27: an 11 s file whose header said
 * 3 hours was charged for 3 hours). The RIFF chunks are walked to the `data` chunk, whose length is
 * taken as the rest of the file, so a size field left unpatched (a killed ffmpeg) cannot lie either.
 */
export async function decodedSeconds(wav: string): Promise<number> {
  const fh = await open(wav, "r");
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(head, 0, head.length, 0);
    let at = 12; // "RIFF" size "WAVE"
    while (at + 8 <= head.length) {
      const id = head.toString("latin1", at, at + 4);
      const len = head.readUInt32LE(at + 4);
      if (id === "data") return Math.max(0, size - (at + 8)) / BYTES_PER_SECOND;
      at += 8 + len + (len % 2);
    }
    return 0;
  } finally {
    await fh.close();
  }
}

/** 16 000 samples a second of 2 bytes, one channel: what decodeAndFindSilences writes. */
const BYTES_PER_SECOND = 16_000 * 2;
