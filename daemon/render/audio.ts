/**
 * Shared ffmpeg audio helpers for stages: run a tool under an AbortSignal, measure duration,
 * decode to 16 kHz mono, find silences and plan chunks that cut inside them.
 * Every child process is killed when the signal aborts, so a cancelled step leaves nothing behind.
 */
import { ffmpegPath, ffprobePath, runTool } from "./ffmpeg.js";

export interface ToolResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion through the shared runner (_ffmpeg.ts); rejects with its stderr
 * tail on a non-zero exit, with the signal's reason on abort, and with `tool_missing` when the
 * program is not installed. All of stderr is kept: silencedetect reports on it.
 */
export async function _runTool(
  cmd: string,
  args: string[],
  opts: { signal?: AbortSignal; cwd?: string } = {},
): Promise<ToolResult> {
  if (opts.signal?.aborted) throw abortError(opts.signal);
  const r = await runTool(cmd, args, { signal: opts.signal, cwd: opts.cwd, maxStderr: Infinity, killGraceMs: 0 }).catch(
    (err: unknown) => {
      throw opts.signal?.aborted ? abortError(opts.signal) : err;
    },
  );
  if (r.code === 0) return { stdout: r.stdout, stderr: r.stderr };
  const tail = r.stderr.trim().split("\n").slice(-6).join("\n");
  throw new Error(`${cmd} exited with ${r.code ?? "a signal"}: ${tail}`);
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new Error("aborted", { cause: reason });
}

/** Duration of a media file in seconds, from ffprobe's container (or first stream) duration. */
export async function probeDuration(file: string, signal?: AbortSignal): Promise<number> {
  const { stdout } = await _runTool(
    ffprobePath(),
    ["-v", "error", "-show_entries", "format=duration:stream=codec_type", "-of", "json", file],
    { signal },
  );
  const info = JSON.parse(stdout) as { format?: { duration?: string } };
  const d = Number(info.format?.duration);
  if (!Number.isFinite(d)) throw new Error(`ffprobe found no duration in ${file}`);
  return d;
}

/** Whether a file holds at least one audio stream. */
export async function hasAudioStream(file: string, signal?: AbortSignal): Promise<boolean> {
  const { stdout } = await _runTool(
    ffprobePath(),
    ["-v", "error", "-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0", file],
    { signal },
  );
  return stdout.trim().length > 0;
}

export type AudioFormat = "wav" | "mp3" | "flac";

/**
 * Decodes (a span of) any media file to mono 16 kHz audio: 16-bit PCM WAV by default, or mp3/flac
 * for uploads. Seeking is done after the input (-ss after -i) so cut points stay sample-exact.
 */
export async function toMono16k(
  input: string,
  output: string,
  opts: { start?: number; duration?: number; format?: AudioFormat; signal?: AbortSignal } = {},
): Promise<string> {
  const args = ["-nostdin", "-v", "error", "-y", "-i", input];
  if (opts.start) args.push("-ss", opts.start.toFixed(3));
  if (opts.duration !== undefined) args.push("-t", opts.duration.toFixed(3));
  args.push("-vn", "-sn", "-dn", "-ac", "1", "-ar", "16000");
  const format = opts.format ?? "wav";
  if (format === "wav") args.push("-c:a", "pcm_s16le", "-f", "wav");
  else if (format === "mp3") args.push("-c:a", "libmp3lame", "-b:a", "48k", "-f", "mp3");
  else args.push("-c:a", "flac", "-f", "flac");
  args.push(output);
  await _runTool(ffmpegPath(), args, { signal: opts.signal });
  return output;
}

export interface Span {
  start: number;
  end: number;
}

/**
 * Finds silences with ffmpeg's silencedetect. A silence still open at the end of the file is
 * closed at `duration` when given.
 */
export async function detectSilences(
  file: string,
  opts: { noiseDb?: number; minSilence?: number; duration?: number; signal?: AbortSignal } = {},
): Promise<Span[]> {
  const noise = opts.noiseDb ?? -35;
  const min = opts.minSilence ?? 0.3;
  const { stderr } = await _runTool(
    ffmpegPath(),
    [
      "-nostdin",
      "-hide_banner",
      "-i",
      file,
      "-vn",
      "-af",
      `silencedetect=noise=${noise}dB:d=${min}`,
      "-f",
      "null",
      "-",
    ],
    { signal: opts.signal },
  );
  return parseSilences(stderr, opts.duration);
}

/** Parses silencedetect's log lines into spans. Exported for tests. */
export function parseSilences(log: string, duration?: number): Span[] {
  const spans: Span[] = [];
  let open: number | null = null;
  for (const line of log.split("\n")) {
    const s = /silence_start: (-?[\d.]+)/.exec(line);
    if (s) open = Math.max(0, Number(s[1]));
    const e = /silence_end: ([\d.]+)/.exec(line);
    if (e) {
      spans.push({ start: open ?? 0, end: Number(e[1]) });
      open = null;
    }
  }
  if (open !== null && duration !== undefined && duration > open) spans.push({ start: open, end: duration });
  return spans;
}

/**
 * Splits [0, duration) into chunks of about `target` seconds, each cut placed in the middle of the
 * silence closest to the ideal boundary (searching ±40% of target). Without a usable silence it
 * cuts hard at the target, which may split a word, so silences are strongly preferred.
 */
export function planChunks(duration: number, silences: Span[], target: number): Span[] {
  if (!(duration > 0)) return [];
  const chunks: Span[] = [];
  let start = 0;
  const window = target * 0.4;
  while (duration - start > target + window * 0.5) {
    const ideal = start + target;
    let best: number | null = null;
    let bestScore = Infinity;
    for (const s of silences) {
      const mid = (s.start + s.end) / 2;
      if (mid <= start + target * 0.5 || mid < ideal - window || mid > ideal + window) continue;
      // Prefer long silences near the ideal point: distance penalised, length (up to 2 s) rewarded.
      const score = Math.abs(mid - ideal) - Math.min(s.end - s.start, 2) * target * 0.1;
      if (score < bestScore) {
        best = mid;
        bestScore = score;
      }
    }
    const cut = best ?? ideal;
    chunks.push({ start, end: cut });
    start = cut;
  }
  chunks.push({ start, end: duration });
  return chunks;
}

/** Seconds of `span` not covered by any silence. */
export function speechSeconds(span: Span, silences: Span[]): number {
  let silent = 0;
  for (const s of silences) {
    const a = Math.max(span.start, s.start);
    const b = Math.min(span.end, s.end);
    if (b > a) silent += b - a;
  }
  return Math.max(0, span.end - span.start - silent);
}

/**
 * Runs `fn` over items with at most `limit` in flight; results keep the input order. After the
 * first failure no new item starts, and it rejects only once the ones in flight have settled, so
 * the caller can release shared resources (a loaded model) safely.
 */
export async function _mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(workers);
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}
