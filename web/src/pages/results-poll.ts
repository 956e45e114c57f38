/**
 * Reads an answer now and again every 2 s (or what the answer asks) while `again` says the work
 * runs. A dropped connection or a 5xx is tried again a bounded number of times; a refusal (4xx)
 * stops. Polling stops when the page goes away.
 */
import { useEffect, useState } from "react";
import { ApiError } from "../api";

const MAX_FAILURES = 30;

export function usePoll<T>(
  load: () => Promise<T>,
  again: (t: T) => number | null,
  deps: unknown[],
): { data: T | null; error: unknown } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const tick = async () => {
      try {
        const t = await load();
        if (stopped) return;
        failures = 0;
        setData(t);
        setError(null);
        const wait = again(t);
        if (wait !== null) timer = setTimeout(tick, Math.max(2000, wait));
      } catch (err) {
        if (stopped) return;
        setError(err);
        const transient = !(err instanceof ApiError) || err.status === 0 || err.status >= 500 || err.status === 429;
        if (transient && ++failures < MAX_FAILURES) timer = setTimeout(tick, 2000 * Math.min(failures, 5));
      }
    };
    setData(null);
    setError(null);
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // The caller names what restarts it: deps, not the callbacks, are the dependencies.
  }, deps);
  return { data, error };
}
