/**
 * Live progress by polling (docs/website.md: no Server-Sent Events). While `active`, `tick` runs
 * every `everyMs` (2 s) counted from the end of the previous tick, so a slow answer never stacks
 * calls and nothing polls faster than that. A hidden tab stops polling; coming back resumes it
 * once the interval since the last call has passed.
 */
import { useEffect, useRef } from "react";

export const POLL_MS = 2000;

export function usePoll(tick: () => Promise<unknown>, active: boolean, everyMs = POLL_MS): void {
  const fn = useRef(tick);
  fn.current = tick;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let running = false;
    let timer: number | undefined;
    let lastEnd = Date.now(); // the page has just read what it shows: wait a full interval first
    const schedule = () => {
      window.clearTimeout(timer);
      if (stopped || running || document.hidden) return;
      timer = window.setTimeout(go, Math.max(0, lastEnd + everyMs - Date.now()));
    };
    const go = async () => {
      if (stopped || running || document.hidden) return;
      running = true;
      try {
        await fn.current();
      } catch {
        /* the tick shows its own errors; polling goes on */
      } finally {
        running = false;
        lastEnd = Date.now();
      }
      schedule();
    };
    const onVisibility = () => schedule();
    document.addEventListener("visibilitychange", onVisibility);
    schedule();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [active, everyMs]);
}
