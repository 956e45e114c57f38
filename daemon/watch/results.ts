/**
 * Collects a finished run's results into a folder: transcript files, clips.json, rendered clips and
 * run.json. Used by the watch folder (outbox/<name>/) and by `clipd run --out DIR`.
 */
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import path from "node:path";
import type { Run } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import type { Queryable } from "../store/db.js";

export interface ResultFile {
  name: string;
  key: string;
}

/** The storage files a run produced, with the names they get in a results folder. */
export function resultFiles(run: Run, children: Run[] = []): ResultFile[] {
  const out = run.output ?? {};
  const files: ResultFile[] = [];
  const t = out.transcript;
  if (t?.files) {
    for (const ext of ["txt", "srt", "vtt"])
      if (t.files[ext]) files.push({ name: `transcript.${ext}`, key: t.files[ext] });
  }
  if (t?.key) files.push({ name: "transcript.json", key: t.key });
  if (out.clips_key) files.push({ name: "clips.json", key: out.clips_key });
  for (const child of [run, ...children]) {
    const o = child.output ?? {};
    const clip = o.clip ?? {};
    const label = clip.number
      ? `clip-${String(clip.number).padStart(2, "0")}${clip.ref ? "-" + clip.ref : ""}`
      : "clip";
    if (o.render?.key) files.push({ name: `${label}.mp4`, key: o.render.key });
    else if (o.cut?.key) files.push({ name: `${label}.mp4`, key: o.cut.key });
    if (o.render?.thumbnail_key) files.push({ name: `${label}.jpg`, key: o.render.thumbnail_key });
  }
  const seen = new Set<string>();
  return files.filter((f) => (seen.has(f.name) ? false : (seen.add(f.name), true)));
}

/** A summary fit for run.json: what ran, how long it took, and what it found (large blobs left out). */
export interface EventRow {
  type: string;
  run_id: string;
  created_at: string | Date;
}

/** The events recorded for these runs, oldest first. */
export async function eventsFor(db: Queryable, runIds: string[]): Promise<EventRow[]> {
  if (!runIds.length) return [];
  const { rows } = await db.query<EventRow>(
    `select type, run_id, created_at from events where run_id = any($1::uuid[]) order by created_at`,
    [runIds],
  );
  return rows;
}

export function runSummary(run: Run, children: Run[] = [], events: EventRow[] = []) {
  const { _events, ...output } = run.output ?? {};
  return {
    run_id: run.id,
    pipeline: run.pipeline,
    state: run.state,
    error: run.error,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    duration_seconds:
      run.started_at && run.finished_at ? (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000 : null,
    steps: run.steps.map((s) => ({
      phase: s.phase,
      stage: s.stage,
      state: s.state,
      attempts: s.attempts,
      started_at: s.started_at,
      finished_at: s.finished_at,
      errors: s.errors,
    })),
    output,
    clips_rendered: children.map((c) => ({
      run_id: c.id,
      state: c.state,
      clip: c.output?.clip?.number,
      look: lookOf(c),
      error: c.error,
    })),
    events: events.map((e) => ({
      type: e.type,
      run_id: e.run_id,
      at: e.created_at instanceof Date ? e.created_at.toISOString() : e.created_at,
    })),
  };
}

/** How a clip was rendered: caption-burn's resolved choices, and the fit, background and shape the cut was given. */
function lookOf(clip: Run) {
  const r = clip.output?.render ?? {};
  const cut = clip.plan?.steps?.find((s) => s.stage === "cut")?.with ?? {};
  return {
    style: r.style,
    caption_size: r.caption_size,
    caption_position: r.caption_position,
    hook_title: r.hook_title,
    censor: r.censor,
    emphasis: r.emphasis,
    emoji: r.emoji,
    loudness: r.loudness,
    fit: cut.fit,
    background: cut.background,
    aspect_ratio: cut.aspect_ratio,
    pace: clip.output?.cut?.pace ?? cut.pace,
  };
}

export async function writeResults(
  storage: Storage,
  run: Run,
  dir: string,
  children: Run[] = [],
  events: EventRow[] = [],
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const f of resultFiles(run, children)) {
    if (!(await storage.exists(f.key))) continue;
    await pipeline(storage.readStream(f.key), createWriteStream(path.join(dir, f.name)));
    written.push(f.name);
  }
  await writeFile(path.join(dir, "run.json"), JSON.stringify(runSummary(run, children, events), null, 2) + "\n");
  written.push("run.json");
  return written;
}
