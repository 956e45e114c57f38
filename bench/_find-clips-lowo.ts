/**
 * Leaving one writer out: for each of the five writers, the engine is fitted on the other four
 * (`fit`, given their episodes) and measured on that writer's episodes alone, through the engine's
 * own answer order (its top 5; each brief searched with the clips already found, as
 * `POST /episodes/{id}/search` runs it, the answer being the best-ranked clip marked for it). The
 * figures per writer, the mean of the four corpus writers (the project's own set is reported but
 * not in that mean: it is the set the engine was first written against), chance beside each, and
 * punctuated episodes apart from raw engine text.
 */
import type { Clip } from "../plugins/find-clips/clip.js";
import { CORPUS_WRITERS, OWN, type Episode } from "./_find-clips-corpus.js";
import { chanceOf, judge, mean, TOP, type Measured, type Span } from "./_find-clips-judge.js";

/** An engine: an episode's ranked clips, or (with `about` and the listed clips) a brief's search. */
export type Finder = (e: Episode, about?: string, existing?: Clip[]) => Clip[];

export interface EpisodeRow {
  id: string;
  writer: string;
  punctuated: boolean;
  noise: number;
  measured: Measured;
  chance: Measured;
  ms: number;
  top: Span[];
  /** Foreign briefs asked (another episode's) and how many got no answer. */
  foreign: { asked: number; refused: number };
}

/** The clip a search answers a brief with: the best-ranked clip marked as answering it, else the first new one. */
export function answerOf(returned: Clip[], existing: Clip[], about: string): Clip | undefined {
  const rankOf = (c: Clip) => c.answers?.find((a) => a.about === about)?.rank;
  const marked = returned.filter((c) => rankOf(c) !== undefined).sort((a, b) => rankOf(a)! - rankOf(b)!);
  const before = new Set(existing.map((c) => c.ref));
  return marked[0] ?? returned.find((c) => c.about === about) ?? returned.find((c) => !before.has(c.ref));
}

/** One episode through an engine: its top clips, each brief's answer, and chance beside them. */
export function measureEpisode(e: Episode, find: Finder): EpisodeRow {
  const t0 = performance.now();
  const clips = find(e);
  const ms = performance.now() - t0;
  const answers = e.briefs.map((b) => answerOf(find(e, b.about, clips), clips, b.about));
  const foreign = e.foreign ?? [];
  const refused = foreign.filter((about) => !answerOf(find(e, about, clips), clips, about)).length;
  const top = clips.slice(0, TOP).map((c) => ({ start: c.start, end: c.end }));
  const lengths = top.map((c) => c.end - c.start);
  const briefLengths = answers.map((a) => (a ? a.end - a.start : 60));
  return {
    id: e.id,
    writer: e.writer,
    punctuated: e.punctuated,
    noise: e.noise,
    measured: judge(e, clips, answers),
    chance: chanceOf(e, lengths, briefLengths),
    ms,
    top,
    foreign: { asked: foreign.length, refused },
  };
}

/**
 * Every writer measured by an engine fitted without it. `fitFor(train)` returns the engine fitted on
 * the training episodes (the shipped engine ignores them: its rules were set by hand).
 */
export function leaveOneWriterOut(all: Episode[], fitFor: (train: Episode[], writer: string) => Finder): EpisodeRow[] {
  const writers = [...new Set(all.map((e) => e.writer))];
  return writers.flatMap((w) => {
    const find = fitFor(
      all.filter((e) => e.writer !== w),
      w,
    );
    return all.filter((e) => e.writer === w).map((e) => measureEpisode(e, find));
  });
}

const mean4 = (v: Array<number | null>) => {
  const n = v.filter((x): x is number => x !== null);
  return n.length ? n.reduce((a, c) => a + c, 0) / n.length : null;
};
const f2 = (v: number | null) => (v === null ? "–" : v.toFixed(2));
const KEYS = ["hit", "precision", "decoys", "boundaries", "brief"] as const;

function line(name: string, rows: EpisodeRow[]): string {
  const m = mean(rows.map((r) => r.measured));
  const c = mean(rows.map((r) => r.chance));
  return `| ${name} | ${rows.length} | ${KEYS.map((k) => `${f2(m[k])} (${f2(c[k])})`).join(" | ")} | ${f2(
    refusedShare(rows),
  )} |`;
}

/** The share of foreign briefs (another episode's) that got no answer; null when none were asked. */
export function refusedShare(rows: EpisodeRow[]): number | null {
  const asked = rows.reduce((a, r) => a + r.foreign.asked, 0);
  return asked ? rows.reduce((a, r) => a + r.foreign.refused, 0) / asked : null;
}

/** Per-writer mean of each measure, then the mean over the four corpus writers (not over episodes). */
export function corpusMean(rows: EpisodeRow[]): { measured: Measured; chance: Measured } {
  const per = CORPUS_WRITERS.map((w) => rows.filter((r) => r.writer === w)).filter((rs) => rs.length);
  return {
    measured: mean(per.map((rs) => mean(rs.map((r) => r.measured)))),
    chance: mean(per.map((rs) => mean(rs.map((r) => r.chance)))),
  };
}

/** The leave-one-writer-out table: each writer, the corpus mean, and the episodes by kind of text. */
export function lowoTable(rows: EpisodeRow[]): string {
  const head =
    "| writer (held out) | episodes | hit rate | precision@5 | decoys | boundaries | brief | foreign refused |\n" +
    "|---|---:|---:|---:|---:|---:|---:|---:|";
  const writers = [...CORPUS_WRITERS, OWN].filter((w) => rows.some((r) => r.writer === w));
  const cm = corpusMean(rows);
  const meanLine = `| **mean of the ${writers.filter((w) => w !== OWN).length} corpus writers** | ${
    rows.filter((r) => r.writer !== OWN).length
  } | ${KEYS.map((k) => `**${f2(cm.measured[k])}** (${f2(cm.chance[k])})`).join(" | ")} | **${f2(
    mean4(writers.filter((w) => w !== OWN).map((w) => refusedShare(rows.filter((r) => r.writer === w)))),
  )}** |`;
  const corpus = rows.filter((r) => r.writer !== OWN);
  const kinds = [
    line(
      "punctuated (all writers)",
      rows.filter((r) => r.punctuated),
    ),
    line(
      "unpunctuated, words right (all writers)",
      rows.filter((r) => !r.punctuated && !r.noise),
    ),
    line(
      "unpunctuated, 20–35 % of words misheard",
      rows.filter((r) => r.noise > 0),
    ),
  ];
  return [
    head,
    ...writers.map((w) =>
      line(
        w === OWN ? `${OWN} (own labelled set)` : w,
        rows.filter((r) => r.writer === w),
      ),
    ),
    ...(corpus.length ? [meanLine] : []),
    ...kinds,
  ].join("\n");
}
