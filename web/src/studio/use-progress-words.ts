/**
 * Live progress as a person reads it: the stage and note once (stageWords), a time left that only
 * ever falls within a stage (the server's estimate can rise as a step starts; a later, larger one
 * is not shown), and, when the percent has not moved for a minute, a line that says the work is
 * waiting rather than leaving the bar looking stuck.
 */
import { useEffect, useRef, useState } from "react";
import type { Episode } from "../types";
import { episodeStatusWords, stageWords } from "./status";

const STILL_MS = 60_000;

export function minutesText(s: number): string {
  if (s < 60) return "under a minute left";
  const m = Math.round(s / 60);
  return `about ${m} minute${m === 1 ? "" : "s"} left`;
}

export interface Eta {
  stage: string;
  at: number;
  left: number;
}

/**
 * The time left to show at `now`, and the estimate kept for the next answer. Within a stage the
 * shown estimate counts down on its own and a new one replaces it only when lower, so it never
 * jumps up; but once the count-down is under a minute while the server still says a minute or
 * more, the server is right (the step is slower than first thought): its estimate is taken, or
 * the page would say "under a minute left" for minutes.
 */
export function fallingEta(prev: Eta | null, stage: string, raw: number, now: number): { eta: Eta; shown: number } {
  const counted = prev && prev.stage === stage ? Math.max(0, prev.left - (now - prev.at) / 1000) : Infinity;
  if (raw < counted || (counted < 60 && raw >= 60)) return { eta: { stage, at: now, left: raw }, shown: raw };
  return { eta: prev!, shown: counted };
}

/** useFallingSeconds' hook around fallingEta; null without an estimate. */
export function useFallingSeconds(stage: string, raw: number | null | undefined): number | null {
  const eta = useRef<Eta | null>(null);
  if (typeof raw === "number" && raw >= 0) {
    const next = fallingEta(eta.current, stage, raw, Date.now());
    eta.current = next.eta;
    return next.shown;
  }
  if (eta.current?.stage !== stage) eta.current = null;
  return null;
}

/** A step waiting in the shared queue, in words: "waiting for a worker: 2 jobs ahead". */
export function queueWords(q: { position: number; ahead: number } | null | undefined): string {
  if (!q) return "";
  if (q.ahead === 0) return "waiting for a worker: next in line";
  return `waiting for a worker: ${q.ahead} job${q.ahead === 1 ? "" : "s"} ahead`;
}

export function useProgressWords(e: Episode | null): string {
  const still = useRef<{ key: string; since: number }>({ key: "", since: Date.now() });
  const [, tick] = useState(0);
  const stage = e ? episodeStatusWords(e) : "";
  const key = e ? `${e.status}:${e.progress.percent}:${e.queue?.ahead ?? ""}` : "";
  if (key !== still.current.key) still.current = { key, since: Date.now() };
  const running = !!e && e.status !== "ready" && e.status !== "failed" && e.status !== "awaiting_upload";
  useEffect(() => {
    // Re-read the stillness (and the count-down) while work runs, between two polls' answers.
    if (!running) return;
    const t = window.setInterval(() => tick((n) => n + 1), 15_000);
    return () => window.clearInterval(t);
  }, [running]);
  const left = useFallingSeconds(e?.status ?? "", e?.progress.eta_seconds);
  if (!e) return "";
  const words = [stageWords(stage, e.progress.note)];
  const waiting = queueWords(e.queue);
  if (waiting) words.push(waiting);
  if (left !== null) words.push(minutesText(left));
  const quiet = Date.now() - still.current.since;
  // A step waiting in the queue already says why nothing moves.
  if (quiet >= STILL_MS && !waiting)
    words.push(`no change for ${Math.floor(quiet / 60_000)} min: waiting for a free worker or a long step`);
  return words.join(" · ");
}
