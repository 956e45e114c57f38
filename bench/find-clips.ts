/**
 * bench/find-clips: how well the clip finder picks the moments a person marked as good.
 *
 * Reads the labelled transcripts in test/fixtures/labelled/*.json (words, segments and `labels`, the
 * known good spans) and runs the heuristic on each with the default limits (30–150 s) and with
 * target_seconds=60. For each transcript and overall it prints:
 * - hit rate: the share of labels that some top-5 clip overlaps by at least half the label's length;
 * - precision@5: the share of the top-5 clips that overlap some label by at least half the clip's length;
 * With two labels per transcript, precision@5 over five clips can be at most 0.4: read it with the counts.
 *
 *   npm run build && node dist/bench/find-clips.js   [BENCH_JSON=1 prints the raw results too]
 */
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findClips, type Clip } from "../plugins/find-clips/heuristic.js";
import { resolveLimits, type FindClipsOptions } from "../plugins/find-clips/index.js";
import type { Transcript } from "../plugins/find-clips/text.js";

export interface Span {
  start: number;
  end: number;
}
export interface Labelled extends Transcript {
  name: string;
  title?: string;
  labels: Span[];
}

const TOP = 5;
const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/** Works from the sources (bench/) and from the build (dist/bench/). */
export function fixturesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, "test", "fixtures", "labelled");
    try {
      if (readdirSync(candidate).some((f) => f.endsWith(".json"))) return candidate;
    } catch {}
  }
  throw new Error("test/fixtures/labelled not found");
}

export function loadLabelled(dir = fixturesDir()): Labelled[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: path.basename(f, ".json"), ...JSON.parse(readFileSync(path.join(dir, f), "utf8")) }));
}

export interface Score {
  labels: number;
  hits: number;
  clips: number;
  good: number;
  /** The most top-5 clips that could be good here: min(5, labels). */
  bestGood: number;
}

/** Hits and good clips among the top five (see the module comment for the definitions). */
export function scoreClips(clips: Span[], labels: Span[]): Score {
  const top = clips.slice(0, TOP);
  const hits = labels.filter((l) => top.some((c) => overlap(c, l) >= 0.5 * (l.end - l.start))).length;
  const good = top.filter((c) => labels.some((l) => overlap(c, l) >= 0.5 * (c.end - c.start))).length;
  return { labels: labels.length, hits, clips: top.length, good, bestGood: Math.min(TOP, labels.length) };
}

export function runOne(t: Labelled, options: FindClipsOptions): { clips: Clip[]; score: Score; ms: number } {
  const t0 = performance.now();
  const clips = findClips(t, { ...resolveLimits(options), seed: t.name, duration: t.duration });
  const ms = performance.now() - t0;
  return { clips, score: scoreClips(clips, t.labels), ms };
}

export function total(scores: Score[]): Score {
  return scores.reduce((a, s) => ({ labels: a.labels + s.labels, hits: a.hits + s.hits, clips: a.clips + s.clips, good: a.good + s.good, bestGood: a.bestGood + s.bestGood }), {
    labels: 0,
    hits: 0,
    clips: 0,
    good: 0,
    bestGood: 0,
  });
}

const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : "–");

function main() {
  const set = loadLabelled();
  const configs: Array<[string, FindClipsOptions]> = [
    ["defaults (30–150 s)", {}],
    ["target_seconds=60 (48–72 s)", { target_seconds: 60 }],
  ];
  const raw: Record<string, unknown> = {};
  console.log(`find-clips heuristic on ${set.length} labelled transcripts; ${os.cpus().length} cores, Node ${process.versions.node}\n`);
  for (const [label, options] of configs) {
    console.log(`### ${label}\n`);
    console.log("| transcript | minutes | labels | top-5 clips | hit rate | precision@5 | ms |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    const scores: Score[] = [];
    for (const t of set) {
      const r = runOne(t, options);
      scores.push(r.score);
      raw[`${label}/${t.name}`] = r.clips.slice(0, TOP).map((c) => ({ start: c.start, end: c.end, score: c.score.value, hook: c.hook }));
      const s = r.score;
      console.log(`| ${t.name} | ${((t.duration ?? 0) / 60).toFixed(1)} | ${s.labels} | ${s.clips} | ${ratio(s.hits, s.labels)} (${s.hits}/${s.labels}) | ${ratio(s.good, s.clips)} (${s.good}/${s.clips}) | ${r.ms.toFixed(0)} |`);
    }
    const all = total(scores);
    console.log(`| **overall** | | ${all.labels} | ${all.clips} | **${ratio(all.hits, all.labels)}** (${all.hits}/${all.labels}) | **${ratio(all.good, all.clips)}** (${all.good}/${all.clips}) | |\n`);
  }
  if (process.env.BENCH_JSON) console.log(JSON.stringify(raw, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
