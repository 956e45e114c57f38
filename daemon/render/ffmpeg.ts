/**
 * Runs ffmpeg and ffprobe as child processes. Every call takes an AbortSignal: when it fires the
 * child gets SIGTERM, then SIGKILL after a short grace, and the promise rejects with the signal's
 * reason, so a timed-out step never leaves an encoder running. stderr is kept (bounded) because it
 * is the only place ffmpeg explains a failure.
 *
 * Binaries come from CLIPD_FFMPEG / CLIPD_FFPROBE, else `ffmpeg` / `ffprobe` on PATH. A program
 * that is not installed rejects with StageError `tool_missing`, which names the apt fix.
 */
import { spawn } from "node:child_process";
import { toolDiskFull } from "../storage/disk-full.js";
import { ffmpegCommand, ffprobeCommand, spawnFailure } from "../ops/os-packages.js";

/** Input options that stop a crafted file (an HLS playlist named .mp4, say) from opening URLs. */
export const SAFE_INPUT_ARGS: readonly string[] = ["-protocol_whitelist", "file,pipe"];

export interface RunToolOptions {
  signal?: AbortSignal;
  cwd?: string;
  /** Called with each complete stderr line, e.g. to follow ffmpeg's `time=` progress. */
  onStderrLine?: (line: string) => void;
  /** Called with each complete stdout line, e.g. ffmpeg's `-progress pipe:1` reports. */
  onStdoutLine?: (line: string) => void;
  /** Keeps at most this many characters of stderr (the tail). Default 64 KiB. */
  maxStderr?: number;
  /** Keeps at most this many characters of stdout. Default 16 MiB. */
  maxStdout?: number;
  /** Milliseconds between SIGTERM and SIGKILL after an abort. Default 2000. */
  killGraceMs?: number;
  /**
   * Wall-time limit in ms, on top of `signal`. Default: none when a signal is given (a step's
   * signal carries its pipeline timeout), else TOOL_DEADLINE_MS, so no call on an untrusted file
   * can run unbounded.
   */
  deadlineMs?: number;
}

/** The deadline of a tool run that was given no signal: 30 minutes. */
export const TOOL_DEADLINE_MS = 30 * 60_000;
/** ffprobe reads headers: 2 minutes is far more than any honest file needs. */
export const PROBE_DEADLINE_MS = 120_000;

/** The caller's signal, bounded by the run's deadline. */
function boundedSignal(opts: RunToolOptions): AbortSignal {
  const ms = opts.deadlineMs ?? (opts.signal ? undefined : TOOL_DEADLINE_MS);
  if (ms === undefined) return opts.signal!;
  const timer = AbortSignal.timeout(ms);
  return opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
}

export interface ToolResult {
  /** Exit code; null when the child died from a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A tool that ran and exited unsuccessfully. */
export class ToolError extends Error {
  readonly tool: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(tool: string, exitCode: number | null, stderr: string) {
    const reason = lastMeaningfulLine(stderr) || "no output";
    super(`${tool} exited with code ${exitCode}: ${reason}`);
    this.name = "ToolError";
    this.tool = tool;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export const ffmpegPath = ffmpegCommand;
export const ffprobePath = ffprobeCommand;

/**
 * Runs a program to completion. Resolves with its exit code (never rejects on a non-zero exit);
 * rejects with `tool_missing` when the program is not installed.
 */
export function runTool(command: string, args: readonly string[], opts: RunToolOptions = {}): Promise<ToolResult> {
  const { maxStderr = 64 * 1024, maxStdout = 16 * 1024 * 1024, killGraceMs = 2000 } = opts;
  const signal = boundedSignal(opts);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const child = spawn(command, args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let partial = "";
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const onAbort = () => {
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), killGraceMs);
      killTimer.unref();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (killTimer) clearTimeout(killTimer);
      fn();
    };

    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    let partialOut = "";
    child.stdout.on("data", (s: string) => {
      if (stdout.length < maxStdout) stdout += s.slice(0, maxStdout - stdout.length);
      if (opts.onStdoutLine) {
        const lines = (partialOut + s).split("\n");
        partialOut = lines.pop() ?? "";
        for (const line of lines) opts.onStdoutLine(line);
      }
    });
    child.stderr.on("data", (s: string) => {
      stderr += s;
      if (stderr.length > maxStderr) stderr = stderr.slice(-maxStderr);
      if (opts.onStderrLine) {
        // ffmpeg ends its progress lines with \r, everything else with \n.
        const lines = (partial + s).split(/\r\n|\r|\n/);
        partial = lines.pop() ?? "";
        for (const line of lines) if (line) opts.onStderrLine(line);
      }
    });
    child.on("error", (err) => finish(() => reject(signal?.aborted ? signal.reason : spawnFailure(command, err))));
    child.on("close", (code) => {
      if (partial && opts.onStderrLine) opts.onStderrLine(partial);
      if (partialOut && opts.onStdoutLine) opts.onStdoutLine(partialOut);
      finish(() => (signal?.aborted ? reject(signal.reason) : resolve({ code, stdout, stderr })));
    });
  });
}

/** Runs ffmpeg (with -hide_banner -nostdin); rejects with ToolError on a non-zero exit. */
export async function runFfmpeg(
  args: readonly string[],
  opts: RunToolOptions & { onTime?: (seconds: number) => void } = {},
): Promise<ToolResult> {
  const { onTime, ...rest } = opts;
  const onStderrLine =
    onTime || rest.onStderrLine
      ? (line: string) => {
          rest.onStderrLine?.(line);
          const t = onTime ? parseFfmpegTime(line) : undefined;
          if (t !== undefined) onTime!(t);
        }
      : undefined;
  const result = await runTool(ffmpegPath(), ["-hide_banner", "-nostdin", ...args], { ...rest, onStderrLine });
  if (result.code !== 0) {
    const failed = new ToolError("ffmpeg", result.code, result.stderr);
    // Its output hit a full disk: the service's capacity, said as such (see disk-full.ts).
    throw toolDiskFull("ffmpeg", result.stderr, failed) ?? failed;
  }
  return result;
}

/** The parts of `ffprobe -print_format json -show_format -show_streams` that clipd reads. */
export interface FfprobeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  pix_fmt?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  sample_rate?: string;
  channels?: number;
  channel_layout?: string;
  bit_rate?: string;
  duration?: string;
  disposition?: Record<string, number>;
  tags?: Record<string, string>;
  side_data_list?: Array<Record<string, unknown>>;
}
export interface FfprobeResult {
  streams: FfprobeStream[];
  format: {
    format_name?: string;
    format_long_name?: string;
    duration?: string;
    size?: string;
    bit_rate?: string;
    tags?: Record<string, string>;
  };
}

/** ffprobe's JSON for a local file; rejects with ToolError (stderr says why) when it cannot read it. */
export async function ffprobeJson(file: string, opts: RunToolOptions = {}): Promise<FfprobeResult> {
  const args = [
    "-v",
    "error",
    "-hide_banner",
    ...SAFE_INPUT_ARGS,
    "-print_format",
    "json",
    "-show_format",
    "-show_streams",
    "-i",
    file,
  ];
  const result = await runTool(ffprobePath(), args, { deadlineMs: PROBE_DEADLINE_MS, ...opts });
  if (result.code !== 0) throw new ToolError("ffprobe", result.code, result.stderr);
  let parsed: Partial<FfprobeResult>;
  try {
    parsed = JSON.parse(result.stdout);
  } catch (cause) {
    throw new ToolError("ffprobe", result.code, `unparseable output: ${String(cause)}`);
  }
  return { streams: parsed.streams ?? [], format: parsed.format ?? {} };
}

/** Seconds from an ffmpeg progress line (`... time=00:01:02.50 ...`), if it has one. */
export function parseFfmpegTime(line: string): number | undefined {
  const m = /time=\s*(-?)(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(line);
  if (!m || m[1] === "-") return undefined;
  return Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

/** The last stderr line that says something, for user-facing messages. */
export function lastMeaningfulLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? "";
}
