/**
 * Where the source player is, as a tiny store: the waveform's playhead and the transcript's
 * current line read it with useSyncExternalStore, so a time update re-renders only them and not
 * the whole episode page.
 */
import { useSyncExternalStore } from "react";

export class Playhead {
  private t = 0;
  private listeners = new Set<() => void>();
  readonly subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  };
  readonly get = () => this.t;
  set(t: number) {
    if (t === this.t) return;
    this.t = t;
    for (const fn of this.listeners) fn();
  }
}

/** The playhead's time, rounded to `step` seconds so readers re-render only when it matters. */
export function usePlayhead(p: Playhead, step = 0.25): number {
  return useSyncExternalStore(p.subscribe, () => Math.floor(p.get() / step) * step);
}
