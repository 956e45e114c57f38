/**
 * How many clip encodes one worker process runs at once (`render.concurrency`); the others wait
 * their turn, first come first served. On 2 cores one render keeps 1.75 cores busy. A second
 * encode at once makes 10% more clips per minute, but the first clip takes 1.8× as long
 * (docs/benchmarks.md, render, "Clip renders at once"). What is not an encode (scene analysis,
 * probes, posters) is not held back: the next clip's plan is made in that idle quarter core.
 *
 * Unlimited until the worker sets it at start, so benches and tests that render in-process are
 * not held back.
 */

let slots = Number.POSITIVE_INFINITY;
let busy = 0;
const queue: Array<() => void> = [];

/** The default of `render.concurrency`: one encode per 4 cores, at least one (measured on 2 cores only). */
export function defaultRenderConcurrency(cores: number): number {
  return Math.max(1, Math.floor(cores / 4));
}

/** Sets the number of encodes at once (at least 1); waiting ones start if it grew. */
export function setRenderConcurrency(n: number): void {
  slots = Math.max(1, Math.floor(n));
  while (busy < slots && queue.length) queue.shift()!(); // length checked
}

/** Encodes running now and waiting, for tests and logs. */
export function encodeSlotsState(): { slots: number; busy: number; waiting: number } {
  return { slots, busy, waiting: queue.length };
}

/** Waits for a slot; resolves with its release. An abort while waiting leaves the queue and rejects. */
export function takeEncodeSlot(signal?: AbortSignal): Promise<() => void> {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    busy--;
    while (busy < slots && queue.length) queue.shift()!(); // length checked
  };
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (busy < slots) {
    busy++;
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const start = () => {
      signal?.removeEventListener("abort", onAbort);
      busy++;
      resolve(release);
    };
    const onAbort = () => {
      const i = queue.indexOf(start);
      if (i >= 0) queue.splice(i, 1);
      reject(signal!.reason); // only registered when a signal is given
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.push(start);
  });
}
