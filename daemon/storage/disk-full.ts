/**
 * A full disk, in one place. ENOSPC (no space) and EDQUOT (quota) from any write of ours, and
 * ffmpeg's "No space left on device", become one error, `InsufficientStorage`: a step that meets it
 * fails with code `insufficient_storage`, and the API answers it 507 (facade/errors.ts). It is the
 * service's fault, not the caller's; a retry at once would only fill the disk again, so the step is
 * not retried.
 */
/**
 * Shaped as a StageError (name, code, retryable, details: what isStageError checks), not derived
 * from it: storage.ts throws it, and engine/stage.ts imports storage's types, so importing the
 * engine here would make a cycle.
 */
export class InsufficientStorage extends Error {
  readonly code = "insufficient_storage";
  readonly retryable = false;
  readonly details: Record<string, unknown>;
  constructor(message: string, opts: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, { cause: opts.cause });
    this.name = "StageError";
    // `limit` names what ran out, as every refusal of a limit does.
    this.details = { limit: "disk_space", ...opts.details };
  }
}

const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);

/** Whether an error (or one it wraps) says the disk is full. */
export function isDiskFull(err: unknown): boolean {
  type Wrapped = { code?: string; cause?: unknown } | null | undefined;
  for (let e = err as Wrapped, depth = 0; e && depth < 5; e = e.cause as Wrapped, depth++) {
    if (e instanceof InsufficientStorage || FULL_CODES.has(e.code ?? "")) return true;
  }
  return false;
}

/**
 * `err` as InsufficientStorage when it says the disk is full (`what` says what was being written), else `err` itself.
 */
export function diskFullOr(err: unknown, what: string): unknown {
  if (err instanceof InsufficientStorage || !isDiskFull(err)) return err;
  return new InsufficientStorage(`no space left on the server's disk while writing ${what}; try again later`, {
    cause: err,
  });
}

/** ffmpeg's own words for a full disk, in its stderr. */
const TOOL_DISK_FULL = /No space left on device|Disk quota exceeded/i;

/** For a tool (ffmpeg) that failed: InsufficientStorage when its stderr says the disk is full, else undefined. */
export function toolDiskFull(tool: string, stderr: string, cause: unknown): InsufficientStorage | undefined {
  if (!TOOL_DISK_FULL.test(stderr)) return undefined;
  return new InsufficientStorage(`no space left on the server's disk for ${tool}'s output; try again later`, { cause });
}
