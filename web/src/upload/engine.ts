/**
 * One file's trip to one signed upload address, outside React: sends it piece by piece, reports
 * progress, tries again by itself after a dropped connection (asking the address where to go on
 * from), stops for good on a refusal, and can be cancelled and resumed while the link lasts.
 */
import {
  AUTO_RETRIES,
  backoffMs,
  CHUNK_BYTES,
  formatBytes,
  isChunked,
  judgeStatus,
  nextRange,
  offsetFrom,
  RateMeter,
  secondsLeft,
} from "./plan";
import { pause, putPiece, storedOffset, UploadAborted, type PutAnswer } from "./transport";

export type UploadPhase = "idle" | "uploading" | "retrying" | "paused" | "cancelled" | "done" | "failed";

export interface UploadState {
  phase: UploadPhase;
  fileName: string;
  /** Bytes the server holds or is receiving. */
  sent: number;
  total: number;
  bytesPerSecond: number | null;
  secondsLeft: number | null;
  /** What went wrong, in words: set while retrying, paused or failed. */
  error: string | null;
  /** Whether "Resume upload" can go on (not refused, link not expired). */
  canResume: boolean;
  /** The server's JSON answer to the last piece, once done. */
  answer?: unknown;
}

/** An upload address as the API hands it out (`upload` in an episode's or transcript's answer). */
export interface UploadTarget {
  url: string;
  headers?: Record<string, string>;
  expires_at?: string;
}

/** Offset corrections (409 upload_offset_mismatch) in a row before the upload is given up. */
const MAX_JUMPS = 10;

export const IDLE: UploadState = {
  phase: "idle",
  fileName: "",
  sent: 0,
  total: 0,
  bytesPerSecond: null,
  secondsLeft: null,
  error: null,
  canResume: false,
};

/** Plain words for a refusal of the address itself; other refusals carry the server's message. */
function refusalText(a: PutAnswer): string {
  const err = (a.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (a.status === 410) return "The upload link has expired (links last 2 hours). Start again to get a new one.";
  if (a.status === 403) return "The upload link was refused. Start again to get a new one.";
  return err?.message ?? `The server refused the upload (HTTP ${a.status}).`;
}
const codeOf = (body: unknown) => (body as { error?: { code?: string } } | undefined)?.error?.code;

export class UploadRun {
  private offset = 0;
  private state: UploadState;
  private ctrl: AbortController | null = null;
  private running: Promise<UploadPhase> | null = null;
  private readonly meter = new RateMeter();
  private readonly chunked: boolean;

  constructor(
    private readonly file: Blob,
    private readonly target: UploadTarget,
    private readonly onState: (s: UploadState) => void,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    const name = (file as File).name ?? "recording";
    this.chunked = isChunked(file.size, chunkBytes);
    this.state = { ...IDLE, fileName: name, total: file.size, canResume: true };
  }

  /** Sends the file from its first byte. */
  start(): Promise<UploadPhase> {
    return this.drive(false);
  }

  /** Goes on after a cancel or a pause, from what the address says it holds. */
  resume(): Promise<UploadPhase> {
    if (this.expired())
      return Promise.resolve(
        this.end("failed", "The upload link has expired (links last 2 hours). Start again to get a new one."),
      );
    return this.drive(true);
  }

  /** The server's answer to the last piece, once done. */
  answerOf(): unknown {
    return this.state.answer;
  }

  /** Stops sending; the stored part stays, so resume() can go on until the link expires. */
  cancel(): void {
    this.ctrl?.abort();
  }

  private expired(): boolean {
    return Boolean(this.target.expires_at && Date.parse(this.target.expires_at) <= Date.now());
  }

  private set(patch: Partial<UploadState>): void {
    this.state = { ...this.state, ...patch };
    this.onState(this.state);
  }

  private progress(sent: number): void {
    this.meter.add(performance.now(), sent);
    const rate = this.meter.bytesPerSecond();
    this.set({ sent, bytesPerSecond: rate, secondsLeft: secondsLeft(sent, this.state.total, rate) });
  }

  private end(phase: UploadPhase, error: string | null = null): UploadPhase {
    const canResume = phase === "cancelled" || phase === "paused";
    this.set({ phase, error, canResume, bytesPerSecond: null, secondsLeft: null });
    return phase;
  }

  private drive(askFirst: boolean): Promise<UploadPhase> {
    if (this.running) return this.running;
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.running = this.loop(askFirst, ctrl.signal)
      .catch((err) => {
        if (err instanceof UploadAborted) return this.end("cancelled");
        return this.end("failed", err instanceof Error ? err.message : String(err));
      })
      .finally(() => {
        this.running = null;
        this.ctrl = null;
      });
    return this.running;
  }

  private async loop(askFirst: boolean, signal: AbortSignal): Promise<UploadPhase> {
    const total = this.file.size;
    let attempt = 0;
    let jumps = 0;
    let ask = askFirst && this.chunked;
    this.meter.reset();
    this.set({ phase: "uploading", error: null, canResume: true });
    // Bounded: each turn either moves the offset forward or spends one of the automatic tries.
    const maxTurns = Math.ceil(total / this.chunkBytes) * (MAX_JUMPS + 2) + 4 * (AUTO_RETRIES + 1);
    for (let turn = 0; turn < maxTurns; turn++) {
      if (ask) {
        const held = await storedOffset(this.target.url, signal);
        if ("status" in held) return this.end("failed", refusalText({ status: held.status, body: held.body }));
        const at = offsetFrom(held.offset, total);
        if (at !== null) this.offset = at;
        this.progress(this.offset);
      }
      ask = false;
      if (!this.chunked) this.offset = 0; // a whole PUT starts over
      const range = nextRange(this.offset, total, this.chunkBytes);
      if (!range) return this.end("done");
      if (this.state.phase !== "uploading") this.set({ phase: "uploading", error: null });
      const answer = await putPiece(
        this.target.url,
        this.target.headers ?? {},
        this.file.slice(range.start, range.end),
        range.contentRange,
        (loaded) => this.progress(range.start + loaded),
        signal,
      );
      const verdict = judgeStatus(answer.status, codeOf(answer.body));
      if (verdict === "ok") {
        this.offset = range.end;
        attempt = 0;
        jumps = 0;
        this.progress(range.end);
        if (range.end >= total) {
          this.set({ answer: answer.body });
          return this.end("done");
        }
        continue;
      }
      if (verdict === "fatal") return this.end("failed", refusalText(answer));
      if (verdict === "offset") {
        // The server holds a different count than this page thought (the browser resent a broken
        // request itself, say): go on from its count. Not a try lost, but bounded all the same.
        const at = offsetFrom(answer.body as { error?: { offset?: unknown } }, total);
        if (at === null || ++jumps > MAX_JUMPS) return this.end("failed", refusalText(answer));
        this.offset = at;
        continue;
      }
      attempt++;
      const where = total ? Math.floor((this.state.sent / total) * 100) : 0;
      const what = answer.status === 0 ? "The connection dropped" : `The server answered HTTP ${answer.status}`;
      if (attempt > AUTO_RETRIES) {
        return this.end(
          "paused",
          `${what} at ${where}% and ${AUTO_RETRIES} tries failed. Check your connection, then press Resume upload.`,
        );
      }
      const wait = backoffMs(attempt);
      this.set({
        phase: "retrying",
        error:
          `${what} at ${where}% (${formatBytes(this.state.sent)} sent). Trying again ` +
          `in ${Math.round(wait / 1000)} s (try ${attempt} of ${AUTO_RETRIES})…`,
        bytesPerSecond: null,
        secondsLeft: null,
      });
      await pause(wait, signal);
      this.meter.reset();
      ask = this.chunked;
    }
    return this.end("paused", "The upload made no progress. Press Resume upload to try again.");
  }
}
