/**
 * The five writers the clip finder is fitted and measured on: the four folders of the corpus written
 * by others (kept in test/fixtures/corpus/find-clips: writer-a … writer-d, each episode's
 * JSON built by its make.py) and the project's own labelled set (test/fixtures/labelled) as the
 * fifth. Each episode becomes one shape (Episode): only its words and title reach the engine; the
 * highlights, decoys, briefs and true sentence ends are labels, read by the judge and the fit alone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Judged, JudgedWord } from "./_find-clips-judge.js";
import { fixturesDir, loadLabelled } from "./_find-clips-measure.js";

export interface Episode extends Judged {
  id: string;
  /** writer-a … writer-d, or `clipd` for the project's own set. */
  writer: string;
  title?: string;
  duration: number;
  words: Array<JudgedWord & { speaker: string | null }>;
  /** False for raw engine text: lower case, no punctuation. */
  punctuated: boolean;
  /** Words corrupted like a weak speech engine's (the share of words wrong), else 0. */
  noise: number;
  /** Briefs of another episode, asked of this one: it should answer none (set by the bench). */
  foreign?: string[];
}

export const OWN = "clipd";
export const CORPUS_WRITERS = ["writer-a", "writer-b", "writer-c", "writer-d"];

/** The corpus folder: CLIPD_CORPUS, else the copy kept in the repository (test/fixtures/corpus/find-clips). */
export function corpusDir(): string | undefined {
  if (process.env.CLIPD_CORPUS) return process.env.CLIPD_CORPUS;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
    const p = path.join(dir, "test", "fixtures", "corpus", "find-clips");
    if (existsSync(path.join(p, "writer-a"))) return p;
  }
  return undefined;
}

interface CorpusJson {
  id: string;
  title?: string;
  words: Array<{ text: string; start: number; end: number; speaker?: string }>;
  highlights: Array<{ start: number; end: number }>;
  decoys?: Array<{ start: number; end: number }>;
  about_queries?: Array<{ about: string; expected_highlight: number }>;
  sentence_ends?: number[];
  noise?: { rate: number };
}

function fromCorpus(writer: string, j: CorpusJson): Episode {
  const words = j.words.map((w) => ({ text: w.text, start: w.start, end: w.end, speaker: w.speaker ?? null }));
  return {
    id: j.id,
    writer,
    title: j.title,
    duration: words.at(-1)?.end ?? 0,
    words,
    highlights: j.highlights.map((h) => ({ start: h.start, end: h.end })),
    decoys: (j.decoys ?? []).map((d) => ({ start: d.start, end: d.end })),
    briefs: (j.about_queries ?? []).map((q) => ({ about: q.about, highlight: q.expected_highlight })),
    ...(j.sentence_ends ? { sentenceEnds: j.sentence_ends } : {}),
    punctuated: !j.sentence_ends,
    noise: j.noise?.rate ?? 0,
  };
}

/** The corpus episodes of one writer's folder, in file order. */
export function loadWriter(writer: string, dir = corpusDir()): Episode[] {
  if (!dir) return [];
  const folder = path.join(dir, writer);
  return readdirSync(folder)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => fromCorpus(writer, JSON.parse(readFileSync(path.join(folder, f), "utf8")) as CorpusJson));
}

/** The project's own labelled set as a fifth writer; its script sentences give the true sentence ends. */
export function loadOwn(dir = fixturesDir()): Episode[] {
  return loadLabelled(dir).map((t) => {
    const words = t.words.map((w) => ({ text: w.text, start: w.start, end: w.end, speaker: w.speaker ?? null }));
    const ends = new Set((t.sentences ?? []).map((s) => s.end.toFixed(3)));
    const sentenceEnds = words.flatMap((w, i) => (ends.has(w.end.toFixed(3)) ? [i] : []));
    const punctuated = words.filter((w) => /[.?!]["')\]]*$/.test(w.text)).length > words.length / 80;
    return {
      id: t.name,
      writer: OWN,
      title: t.title,
      duration: t.duration,
      words,
      highlights: t.labels,
      decoys: t.decoys ?? [],
      briefs: (t.briefs ?? []).map((b) => ({ about: b.about, highlight: b.label })),
      sentenceEnds,
      punctuated,
      noise: 0,
    };
  });
}

/** Each episode with the briefs of the next one (the last with the first's) as its foreign briefs. */
export const withForeign = (eps: Episode[]): Episode[] =>
  eps.map((e, i) => ({ ...e, foreign: eps[(i + 1) % eps.length]!.briefs.map((b) => b.about) }));

/** All five writers' episodes (the corpus ones from its copy in test/fixtures/corpus/find-clips). */
export function loadWriters(): Episode[] {
  const dir = corpusDir();
  return [...(dir ? CORPUS_WRITERS.flatMap((w) => loadWriter(w, dir)) : []), ...loadOwn()];
}
