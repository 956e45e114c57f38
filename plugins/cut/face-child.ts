/**
 * The face finder's process (forked by faces.ts): TensorFlow.js on its WASM backend runs the face
 * models that ship inside @vladmandic/face-api (a tiny face detector, 68 landmarks, 128-d
 * descriptors), so nothing is fetched at run time. Kept out of the server's process because one frame
 * holds a thread for 50–200 ms of pure computation: a worker thread would share the process's memory
 * cap and its crash would be ours; a child is niced, killed on abort, and gone when idle.
 *
 * In: `{ id, t, width, height, rgb, marks, fresh }` (raw RGB). Out: `{ id, faces }`, each face in
 * fractions of the picture, with `mouth` (how open the lower face is, relative to the eyes' distance)
 * when `marks` asked for the landmarks, and a descriptor for a face that starts a track: one not near
 * a face of the last frame, near more than one (the track is ambiguous), or any after `fresh` (a cut).
 * Descriptors cost about as much as the detection: once a track is what telling people apart needs,
 * and the first track's waits for a second (it comes in `late`, with its frame's `t` and place).
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
  /** Run the 68 landmarks (the mouth's opening): asked only while it can decide between speakers. */
  marks?: boolean;
  /** The picture changed wholesale (a cut): every face starts a new track. */
  fresh?: boolean;
}

export interface FoundFace {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
  /** (inner lip gap + nose-to-chin) over the eyes' distance; moves when the mouth does. Absent: not measured. */
  mouth?: number;
  desc?: number[];
}

const DESCRIBE_ALL = process.argv.includes("--describe-all");
/** `--full`: the first version's cost (input 416, a descriptor every 3 s), for bench/reframe's comparison. */
const FULL = process.argv.includes("--full");
/**
 * The detector's input. 320 costs 40 % less a frame and still finds a face an eighth of a 480-pixel
 * frame wide, but its boxes wander by a twentieth of a 9:16 window: with a frame detected only every
 * second or so, the camera of a 1080p pan then started late (face in frame 91 %, 100 % at 416).
 */
const INPUT_SIZE = 416;
const REDESCRIBE_S = FULL ? 3 : Number.POSITIVE_INFINITY;

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
  // The recognition net loads on the first descriptor: a clip of one track may need none.
  let recognition: Promise<unknown> | undefined;
  const options = new faceapi.TinyFaceDetectorOptions({ inputSize: INPUT_SIZE, scoreThreshold: 0.45 });
  // Each face of the last frame looked at: its box and when it was described.
  let previous: Array<{ box: FoundFace; described: number }> = [];

  // biome-ignore lint/suspicious/noExplicitAny: TensorFlow.js tensors
  const cut = async (input: any, f: FaceFrame, b: FoundFace): Promise<any> => {
    const rect = new faceapi.Rect((b.x - b.w / 2) * f.width, (b.y - b.h / 2) * f.height, b.w * f.width, b.h * f.height);
    return (await faceapi.extractFaceTensors(input, [rect]))[0];
  };
  // biome-ignore lint/suspicious/noExplicitAny: TensorFlow.js tensors
  const crop = async <T>(input: any, f: FaceFrame, b: FoundFace, use: (crop: any) => Promise<T>): Promise<T> => {
    const c = await cut(input, f, b);
    try {
      return await use(c);
    } finally {
      c.dispose();
    }
  };
  // biome-ignore lint/suspicious/noExplicitAny: a TensorFlow.js tensor
  const describe = async (c: any): Promise<number[]> => {
    recognition ??= faceapi.nets.faceRecognitionNet.loadFromDisk(models);
    await recognition;
    const desc = await faceapi.computeFaceDescriptor(c);
    return Array.from(desc as Float32Array, (v) => Math.round(v * 1e4) / 1e4);
  };
  // The first track's face waits for a second one: telling people apart needs two, one person none.
  // biome-ignore lint/suspicious/noExplicitAny: a TensorFlow.js tensor
  let first: { t: number; x: number; y: number; crop: any } | undefined;
  let tracks = 0;
  let late: Array<{ t: number; x: number; y: number; desc: number[] }> = [];
  // biome-ignore lint/suspicious/noExplicitAny: a TensorFlow.js tensor
  const look = async (f: FaceFrame, input: any): Promise<FoundFace[]> => {
    if (f.fresh) previous = [];
    const marks = FULL || f.marks;
    // biome-ignore lint/suspicious/noExplicitAny: face-api's detection objects
    const faces: FoundFace[] = (await faceapi.detectAllFaces(input, options)).map((d: any) => box(d, f));
    const next: typeof previous = [];
    for (const [i, face] of faces.entries()) {
      const near1 = previous.filter((p) => near(p.box, face));
      // Ambiguous: two faces of the last frame could be this one, or two of this frame that one.
      const ambiguous = near1.length > 1 || faces.some((o, j) => j !== i && near1.some((p) => near(p.box, o)));
      const same = near1.length === 1 && !ambiguous ? near1[0] : undefined;
      // On the detector's own box: it moves with an opening mouth, and the landmarks with it.
      if (marks) face.mouth = await crop(input, f, face, async (c) => mouthOpening(await landmarks(c)));
      let described = same?.described ?? Number.NEGATIVE_INFINITY;
      if (DESCRIBE_ALL || f.t - described >= REDESCRIBE_S || f.t < described) {
        if (FULL || DESCRIBE_ALL || ++tracks > 1) {
          if (first) late.push({ t: first.t, x: first.x, y: first.y, desc: await describe(first.crop) });
          first?.crop.dispose();
          first = undefined;
          face.desc = await crop(input, f, face, describe);
        } else first = { t: f.t, x: face.x, y: face.y, crop: await cut(input, f, face) };
        described = f.t;
      }
      next.push({ box: face, described });
    }
    previous = next;
    return faces;
  };
  // biome-ignore lint/suspicious/noExplicitAny: a TensorFlow.js tensor
  const landmarks = async (c: any): Promise<Array<{ x: number; y: number }>> =>
    (await faceapi.nets.faceLandmark68TinyNet.detectLandmarks(c)).positions;

  const queue: FaceFrame[] = [];
  let busy = false;
  const work = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const f = queue.shift()!;
      const input = tf.tensor3d(f.rgb, [f.height, f.width, 3], "int32");
      try {
        const faces = await look(f, input);
        process.send?.({ id: f.id, faces, ...(late.length ? { late } : {}) });
        late = [];
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

// biome-ignore lint/suspicious/noExplicitAny: face-api's detection object
function box(d: any, f: FaceFrame): FoundFace {
  const b = d.box;
  return {
    x: (b.x + b.width / 2) / f.width,
    y: (b.y + b.height / 2) / f.height,
    w: b.width / f.width,
    h: b.height / f.height,
    score: d.score,
  };
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
