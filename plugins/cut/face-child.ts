/**
 * The face finder's process (forked by faces.ts): TensorFlow.js on its WASM backend runs the face
 * models that ship inside @vladmandic/face-api (a tiny face detector, 68 landmarks, 128-d
 * descriptors), so nothing is fetched at run time. Kept out of the server's process because one frame
 * holds a thread for 50–200 ms of pure computation: a worker thread would share the process's memory
 * cap and its crash would be ours; a child is niced, killed on abort, and gone when idle.
 *
 * In: `{ id, t, width, height, rgb }` (raw RGB). Out: `{ id, faces }`, each face in fractions of the
 * picture, with `mouth` (how open the lower face is, relative to the eyes' distance) and, for a face
 * that is new or not described for a while, its descriptor.
 */
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

export interface FaceFrame {
  id: number;
  t: number;
  width: number;
  height: number;
  rgb: Uint8Array;
}

export interface FoundFace {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
  /** (inner lip gap + nose-to-chin) over the eyes' distance; moves when the mouth does. */
  mouth: number;
  desc?: number[];
}

/** Describe a face again after this long even where it did not move (a cut to a look-alike shot). */
const REDESCRIBE_S = 3;
const DESCRIBE_ALL = process.argv.includes("--describe-all");

const require = createRequire(import.meta.url);

async function main(): Promise<void> {
  try {
    os.setPriority(10);
  } catch {
    // Not allowed here: the analysis still runs, at the default priority.
  }
  // biome-ignore lint/suspicious/noExplicitAny: TensorFlow.js and face-api ship CommonJS without usable types here
  const tf: any = require("@tensorflow/tfjs");
  require("@tensorflow/tfjs-backend-wasm");
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const faceapi: any = require("@vladmandic/face-api/dist/face-api.node-wasm.js");
  await tf.setBackend("wasm");
  await tf.ready();
  const models = path.join(path.dirname(require.resolve("@vladmandic/face-api/package.json")), "model");
  await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
  await faceapi.nets.faceLandmark68TinyNet.loadFromDisk(models);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
  const options = new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.45 });
  let previous: Array<{ box: FoundFace; described: number }> = [];

  const queue: FaceFrame[] = [];
  let busy = false;
  const work = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const f = queue.shift()!;
      const input = tf.tensor3d(f.rgb, [f.height, f.width, 3], "int32");
      try {
        // biome-ignore lint/suspicious/noExplicitAny: face-api's result objects
        const found: any[] = await faceapi.detectAllFaces(input, options).withFaceLandmarks(true);
        const faces: FoundFace[] = [];
        const next: typeof previous = [];
        for (const d of found) {
          const b = d.detection.box;
          const face: FoundFace = {
            x: (b.x + b.width / 2) / f.width,
            y: (b.y + b.height / 2) / f.height,
            w: b.width / f.width,
            h: b.height / f.height,
            score: d.detection.score,
            mouth: mouthOpening(d.landmarks.positions),
          };
          const before = previous.find((p) => near(p.box, face));
          let described = before?.described ?? Number.NEGATIVE_INFINITY;
          if (DESCRIBE_ALL || f.t - described >= REDESCRIBE_S || f.t < described) {
            const [crop] = await faceapi.extractFaceTensors(input, [d.detection]);
            try {
              const desc = await faceapi.computeFaceDescriptor(crop);
              face.desc = Array.from(desc as Float32Array, (v) => Math.round(v * 1e4) / 1e4);
            } finally {
              crop.dispose();
            }
            described = f.t;
          }
          faces.push(face);
          next.push({ box: face, described });
        }
        previous = next;
        process.send?.({ id: f.id, faces });
      } catch (err) {
        process.send?.({ id: f.id, faces: [], error: String(err) });
      } finally {
        input.dispose();
      }
    }
    busy = false;
  };
  process.on("message", (m: FaceFrame) => {
    queue.push({ ...m, rgb: new Uint8Array(m.rgb) });
    void work();
  });
  process.send?.({ ready: true });
}

/** The same face on the next sample: its centre within half a face of the last one. */
const near = (a: FoundFace, b: FoundFace) => Math.hypot(a.x - b.x, a.y - b.y) < 0.5 * Math.max(a.w, b.w);

/** How open the lower face is: inner lip gap plus nose tip to chin, over the distance between the eyes. */
function mouthOpening(p: Array<{ x: number; y: number }>): number {
  const mean = (from: number, to: number) => {
    let x = 0;
    let y = 0;
    for (let i = from; i <= to; i++) {
      x += p[i]!.x;
      y += p[i]!.y;
    }
    return { x: x / (to - from + 1), y: y / (to - from + 1) };
  };
  const d = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
  const eyes = d(mean(36, 41), mean(42, 47));
  if (p.length < 68 || !eyes) return 0;
  return (d(p[62]!, p[66]!) + d(p[33]!, p[8]!)) / eyes;
}

main().catch((err) => {
  process.send?.({ fatal: String(err) });
  process.exit(1);
});
