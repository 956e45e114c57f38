/**
 * Live progress as a person reads it: the stage and note once (stageWords), a time left that only
 * ever falls within a stage (the server's estimate can rise as a step starts; a later, larger one
 * is not shown), and, when the percent has not moved for a minute, a line that says the work is
 * waiting rather than leaving the bar looking stuck.
 */
import { useEffect, useRef, useState } from "react";
import type { Episode } from "../types";
import { EPISODE_STATUS, stageWords } from "./status";

const STILL_MS = 60_000;

function minutesText(s: number): string {
  if (s < 60) return "under a minute left";
  const m = Math.round(s / 60);
  return `about ${m} minute${m === 1 ? "" : "s"} left`;
}

export function useProgressWords(e: Episode | null): string {
  const eta = useRef<{ stage: string; at: number; left: number } | null>(null);
  const still = useRef<{ key: string; since: number }>({ key: "", since: Date.now() });
  const [, tick] = useState(0);
  const stage = e ? (EPISODE_STATUS[e.status] ?? e.status) : "";
  const key = e ? `${e.status}:${e.progress.percent}` : "";
  if (key !== still.current.key) still.current = { key, since: Date.now() };
  const running = !!e && e.status !== "ready" && e.status !== "failed" && e.status !== "awaiting_upload";
  useEffect(() => {
    // Re-read the stillness (and the count-down) while work runs, between two polls' answers.
    if (!running) return;
    const t = window.setInterval(() => tick((n) => n + 1), 15_000);
    return () => window.clearInterval(t);
  }, [running]);
  if (!e) return "";
  const words = [stageWords(stage, e.progress.note)];
  const raw = e.progress.eta_seconds;
  if (typeof raw === "number" && raw >= 0) {
    const now = Date.now();
    const prev = eta.current;
    // The shown estimate counts down on its own; a new one replaces it only when it is lower.
    const counted = prev && prev.stage === e.status ? Math.max(0, prev.left - (now - prev.at) / 1000) : Infinity;
    if (raw < counted) eta.current = { stage: e.status, at: now, left: raw };
    const left = Math.min(raw, counted);
    words.push(minutesText(left));
  } else if (eta.current?.stage !== e.status) eta.current = null;
  const quiet = Date.now() - still.current.since;
  if (quiet >= STILL_MS)
    words.push(`no change for ${Math.floor(quiet / 60_000)} min: waiting for a free worker or a long step`);
  return words.join(" · ");
}
