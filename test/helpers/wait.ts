// The one way tests wait: poll for a state, never sleep a fixed time. "Nothing more arrives" is
// proved the same way, by waiting for whatever would send it to reach a final state.

export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  what?: string;
  /** Generous by default: CI machines are slow, and a passing wait costs only as long as it takes. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `fn` until it returns a truthy value, and returns that value. A throw counts as "not yet";
 * on timeout the error names `what` and carries the last failure.
 */
export async function waitFor<T>(fn: () => Promise<T> | T, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${opts.what ?? "condition"}${last ? `: ${(last as Error).message}` : ""}`,
        last ? { cause: last } : undefined,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
