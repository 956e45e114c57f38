/**
 * The cut and render jobs this page started, the latest per clip, polled (GET /jobs/{id}) every
 * 2 s while any is queued or running. `onSettled` hears when one finishes, so the page can read
 * the episode again (its clips' statuses and links change then).
 */
import { useCallback, useRef, useState } from "react";
import { call } from "../api";
import type { Job, StartedJob } from "../types";
import { usePoll } from "./use-poll";

export const isActive = (j: Pick<Job, "status">) => j.status === "queued" || j.status === "running";

export function useJobs(onSettled: () => void) {
  const [jobs, setJobs] = useState<ReadonlyMap<string, Job>>(new Map());
  const settled = useRef(onSettled);
  settled.current = onSettled;

  const add = useCallback((started: Array<StartedJob & { title?: string | null }>) => {
    setJobs((old) => {
      const next = new Map(old);
      for (const s of started) next.set(s.clip_id, { title: null, progress: 0, ...s });
      return next;
    });
  }, []);

  const tick = useCallback(async () => {
    const running = [...jobs.values()].filter(isActive);
    const fresh = await Promise.all(
      running.map((j) => call<Job>("GET", `/jobs/${encodeURIComponent(j.job_id)}`).catch(() => null)),
    );
    setJobs((old) => {
      const next = new Map(old);
      for (const j of fresh) {
        // A newer job for the clip (a restyle started meanwhile) wins over this answer.
        if (!j || next.get(j.clip_id)?.job_id !== j.job_id) continue;
        next.set(j.clip_id, j);
      }
      return next;
    });
    if (fresh.some((j) => j && !isActive(j))) settled.current();
  }, [jobs]);

  usePoll(tick, [...jobs.values()].some(isActive));
  return { jobs, add };
}
