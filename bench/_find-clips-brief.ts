/**
 * Fitting the brief scorer's weights and gate (plugins/find-clips/brief-weights.ts) on labelled
 * briefs: each brief's candidate moments, exactly as the engine forms them with the given ranker,
 * become one group whose targets say which moment's answer (the clip already listed that it falls
 * in, as `POST /episodes/{id}/search` answers) hits the brief's highlight by the corpus's rule, so
 * the fit learns the extent as well as the place. Sentence vectors are embedded ahead, once.
 */
import { createHash } from "node:crypto";
import { isShow, textOf } from "../plugins/find-clips/brief-features.js";
import { briefRows } from "../plugins/find-clips/brief-features.js";
import { fitBriefWeights, type BriefGroup, type BriefWeights } from "../plugins/find-clips/brief-weights.js";
import { candidatesOf, findClips, prepare } from "../plugins/find-clips/heuristic.js";
import { resolveLimits } from "../plugins/find-clips/index.js";
import { momentsOf } from "../plugins/find-clips/moments.js";
import type { Ranker } from "../plugins/find-clips/ranker.js";
import { embedAhead, sentenceVector } from "../plugins/find-clips/sentence-model.js";
import type { Episode } from "./_find-clips-corpus.js";
import { hits, overlap } from "./_find-clips-judge.js";

/** Chosen by leaving one writer out (docs/decisions.md, "Briefs by a sentence model"). */
export const BRIEF_SETTINGS = { l2: 0.001, lose: 0.02 };

/** Each episode's sentences and briefs (its own, and the foreign ones it is asked) embedded ahead. */
export async function embedEpisodes(eps: Episode[]): Promise<boolean> {
  const max = resolveLimits({}).max;
  const texts = eps.flatMap((e) => {
    const p = prepare({ words: e.words }, { duration: e.duration, max });
    return [
      ...p.sentences.filter((s) => !isShow(s)).map(textOf),
      ...e.briefs.map((b) => b.about),
      ...(e.foreign ?? []),
    ];
  });
  return embedAhead(texts, () => {});
}

/** The brief groups of these episodes with this ranker, and each brief's best closeness (for the gate). */
export function briefGroups(
  eps: Episode[],
  ranker: Ranker | null | undefined,
): { groups: BriefGroup[]; best: number[] } {
  const limits = resolveLimits({});
  const groups: BriefGroup[] = [];
  const best: number[] = [];
  for (const e of eps) {
    const p = prepare({ words: e.words }, { duration: e.duration, max: limits.max });
    const moments = momentsOf(candidatesOf(p, { ...limits, ranker }));
    const clips = findClips({ words: e.words }, { ...limits, seed: e.id, duration: e.duration, ranker }, p);
    const ws = moments.map((m) => m.w);
    // The span a moment answers with: the listed clip it mostly lies in, itself, or none (it grazes one).
    const spans = ws.map((w) => {
      const same = clips.find((c) => overlap(c, w) >= 0.5 * Math.min(w.end - w.start, c.end - c.start));
      if (same) return same;
      return clips.some((c) => overlap(c, w) > 0) ? undefined : w;
    });
    for (const b of e.briefs) {
      const hl = e.highlights[b.highlight];
      const rows = briefRows(ws, b.about, e.duration, sentenceVector);
      moments.forEach((m, k) => (rows.x[k]![2] = m.s.quality));
      const keep = spans.flatMap((s, k) => (s ? [k] : []));
      groups.push({ x: keep.map((k) => rows.x[k]!), y: keep.map((k) => (hl && hits(spans[k]!, hl) ? 1 : 0)) });
      best.push(rows.best.mean);
    }
  }
  return { groups, best };
}

/** What the weights were fitted on: writers, episodes, and a hash of their words and briefs. */
export function fittedOn(eps: Episode[], briefs: number): BriefWeights["fitted_on"] {
  const h = createHash("sha256");
  for (const e of eps)
    h.update(JSON.stringify([e.writer, e.id, e.words.map((w) => [w.text, w.start, w.end]), e.highlights, e.briefs]));
  return {
    writers: [...new Set(eps.map((e) => e.writer))],
    episodes: eps.map((e) => `${e.writer}/${e.id}`),
    sha256: h.digest("hex"),
    briefs,
  };
}

/** The brief weights fitted on these episodes, their moments formed with this ranker. */
export function fitBrief(eps: Episode[], ranker: Ranker | null | undefined, settings = BRIEF_SETTINGS): BriefWeights {
  const { groups, best } = briefGroups(eps, ranker);
  return fitBriefWeights(groups, best, settings, fittedOn(eps, groups.length));
}

/** The weights as the shipped file holds them (one stable layout, so a refit compares byte for byte). */
export const briefJson = (w: BriefWeights) => `${JSON.stringify(w, null, 1)}\n`;
