/**
 * The uploader's arithmetic, free of the browser so it is tested on its own (test/unit/upload-plan):
 * which bytes go next, the Content-Range that names them, how long to wait before trying again,
 * where the server says to go on from, and the speed and time left shown beside the bar.
 */

/** 8 MiB: big enough that a fast link is not slowed by a request per chunk, small enough that a drop loses little. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** Automatic tries after a dropped connection before the page waits for "Resume upload". */
export const AUTO_RETRIES = 5;

export interface ChunkRange {
  /** First byte sent. */
  start: number;
  /** One past the last byte sent. */
  end: number;
  /** The Content-Range header, or null when the file goes whole in one plain PUT. */
  contentRange: string | null;
}

/**
 * The next piece to send from `offset`, or null when nothing is left. A file no bigger than one
 * chunk goes whole without Content-Range (what a plain signed PUT has always taken).
 */
export function nextRange(offset: number, total: number, chunk = CHUNK_BYTES): ChunkRange | null {
  if (!(chunk > 0)) throw new RangeError("chunk must be positive");
  if (offset >= total) return null;
  if (total <= chunk) return { start: 0, end: total, contentRange: null };
  const start = Math.max(0, offset);
  const end = Math.min(total, start + chunk);
  return { start, end, contentRange: `bytes ${start}-${end - 1}/${total}` };
}

/** Whether a file of `total` bytes goes in chunks (and so can go on after a drop). */
export const isChunked = (total: number, chunk = CHUNK_BYTES) => total > chunk;

/** Milliseconds before try `attempt` (1, 2, …): 1 s doubling, at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/**
 * The stored-bytes count from a HEAD answer's Upload-Offset, or from a 409 upload_offset_mismatch
 * body's `error.offset`. Anything unreadable is null (the caller then starts that chunk again).
 */
export function offsetFrom(
  source: string | null | undefined | { error?: { offset?: unknown } },
  total: number,
): number | null {
  const raw = typeof source === "object" && source !== null ? source.error?.offset : source;
  const n =
    typeof raw === "number" ? raw : typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) return null;
  return Math.min(n, total);
}

/** What an HTTP status means for the upload: go on, try again later, or stop for good. */
export function judgeStatus(status: number, code?: string): "ok" | "offset" | "retry" | "fatal" {
  if (status >= 200 && status < 300) return "ok";
  if (status === 409 && code === "upload_offset_mismatch") return "offset";
  // The server read a chunk that broke off (it keeps what arrived): ask where to go on from.
  if (code === "upload_interrupted") return "retry";
  // 0: no answer at all (the connection dropped); 408/429/5xx: the server may take it later.
  // 507 (disk full) is worth a later try too: space may be freed.
  if (status === 0 || status === 408 || status === 429 || status >= 500) return "retry";
  return "fatal";
}

/** Speed from recent progress samples: the last `windowMs` only, so a stall shows quickly. */
export class RateMeter {
  private samples: { t: number; bytes: number }[] = [];
  constructor(private readonly windowMs = 5000) {}

  /** Forget the past (after a pause or a drop, old speed says nothing). */
  reset(): void {
    this.samples = [];
  }

  add(t: number, bytes: number): void {
    this.samples.push({ t, bytes });
    while (this.samples.length > 2 && t - this.samples[1]!.t >= this.windowMs) this.samples.shift();
  }

  /** Bytes a second, or null until half a second of samples exists. */
  bytesPerSecond(): number | null {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.t - first.t < 500) return null;
    return Math.max(0, ((last.bytes - first.bytes) * 1000) / (last.t - first.t));
  }
}

/** Seconds left at `rate`, or null when it cannot be told. */
export function secondsLeft(sent: number, total: number, rate: number | null): number | null {
  if (rate === null || rate <= 0) return null;
  return Math.max(0, Math.ceil((total - sent) / rate));
}

/** "12.3 MB": decimal units, as file managers and disks count. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) (v /= 1000), i++;
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** "about 2 min 5 s left", or "" when unknown. */
export function formatTimeLeft(seconds: number | null): string {
  if (seconds === null) return "";
  if (seconds < 60) return `about ${Math.max(1, seconds)} s left`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `about ${m} min ${seconds % 60} s left`;
  return `about ${Math.floor(m / 60)} h ${m % 60} min left`;
}
