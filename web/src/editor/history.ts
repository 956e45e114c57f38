/**
 * The editor's undo and redo: every edit (a trim, a word, a star, a look) is a step, and a run of
 * changes of one kind in a row (the letters typed into one word box, the moves of one drag) is one
 * step, so Undo takes back what a person thinks of as one change. Pure functions, with a small hook.
 */
import { useCallback, useState } from "react";

export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** What the last change was (a word box, a drag); a change of the same group joins its step. */
  group: string | null;
}

/** Most steps kept: enough for a session, bounded so a long one does not grow without end. */
const KEEP = 200;

export const start = <T>(present: T): History<T> => ({ past: [], present, future: [], group: null });

export function change<T>(h: History<T>, next: T, group?: string): History<T> {
  if (group && group === h.group) return { ...h, present: next, future: [] };
  return { past: [...h.past, h.present].slice(-KEEP), present: next, future: [], group: group ?? null };
}

export function undo<T>(h: History<T>): History<T> {
  const prev = h.past.at(-1);
  if (prev === undefined) return h;
  return { past: h.past.slice(0, -1), present: prev, future: [h.present, ...h.future], group: null };
}

export function redo<T>(h: History<T>): History<T> {
  const [next, ...rest] = h.future;
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: rest, group: null };
}

export function useHistory<T>(initial: T) {
  const [h, setH] = useState(() => start(initial));
  return {
    state: h.present,
    canUndo: h.past.length > 0,
    canRedo: h.future.length > 0,
    set: useCallback((fn: (s: T) => T, group?: string) => setH((x) => change(x, fn(x.present), group)), []),
    undo: useCallback(() => setH(undo), []),
    redo: useCallback(() => setH(redo), []),
    reset: useCallback((v: T) => setH(start(v)), []),
  };
}
