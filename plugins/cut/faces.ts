/**
 * The parent side of the face finder: one child process per analysis (face-child.ts), fed the raw
 * frames of the scene decode as they arrive, answering in order. The models load in about a second;
 * one child serves every piece of a clip. A child that dies or is aborted takes only the analysis
 * with it: the caller falls back to the saliency crop.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FaceFrame, FoundFace } from "./face-child.js";

export type { FoundFace } from "./face-child.js";

// Under the tests this module is TypeScript source, and Node 24 runs the child's source as it is.
const CHILD = fileURLToPath(import.meta.url).replace(/faces\.(ts|js)$/, "face-child.$1");

export interface LateDescriptor {
  t: number;
  x: number;
  y: number;
  desc: number[];
}

type Answer = { ready?: boolean; fatal?: string; id?: number; faces?: FoundFace[]; late?: LateDescriptor[] };

/** Frames in flight before the decode is asked to wait (each is a few hundred kB). */
export const MAX_PENDING = 6;

export class FaceFinder {
  private child: ChildProcess;
  private ready: Promise<void>;
  private waiting = new Map<number, (faces: FoundFace[]) => void>();
  private next = 0;
  private failure: Error | undefined;
  private idle: Array<() => void> = [];
  /** Descriptors made after their frame's answer (face-child.ts): the first track's, once a second came. */
  readonly late: LateDescriptor[] = [];

  /**
   * `describeAll`: a descriptor for every face (the tests tell people apart on rendered frames);
   * `full`: the first version's cost (bench/reframe compares).
   */
  constructor(signal?: AbortSignal, o: { describeAll?: boolean; full?: boolean } = {}) {
    const args = [...(o.describeAll ? ["--describe-all"] : []), ...(o.full ? ["--full"] : [])];
    this.child = fork(CHILD, args, {
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    this.child.stderr?.setEncoding("utf8").on("data", (s: string) => {
      stderr = (stderr + s).slice(-1000);
    });
    const onAbort = () => this.child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (m: Answer) => {
        if (m.ready) return resolve();
        if (m.late) this.late.push(...m.late);
        if (m.fatal) return reject(new Error(`face finder: ${m.fatal}`));
        const done = m.id === undefined ? undefined : this.waiting.get(m.id);
        if (done && m.id !== undefined) {
          this.waiting.delete(m.id);
          done(m.faces ?? []);
          this.wake();
        }
      });
      this.child.on("exit", (code, sig) => {
        signal?.removeEventListener("abort", onAbort);
        this.failure ??= new Error(`face finder exited (${sig ?? code}): ${stderr.trim().split("\n").at(-1) ?? ""}`);
        reject(this.failure);
        for (const done of this.waiting.values()) done([]);
        this.waiting.clear();
        this.wake();
      });
    });
    // A failure is reported by find() and close(); an unread one must not end the process.
    this.ready.catch(() => undefined);
  }

  /** Faces in one raw RGB frame; resolves when the child has looked at it. */
  async find(frame: Omit<FaceFrame, "id">): Promise<FoundFace[]> {
    await this.ready;
    if (this.failure) throw this.failure;
    const id = this.next++;
    const answer = new Promise<FoundFace[]>((resolve) => this.waiting.set(id, resolve));
    this.child.send({ id, ...frame });
    return answer;
  }

  /** How many frames the child has not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Resolves once fewer than MAX_PENDING frames wait (at once when they already do). */
  room(): Promise<void> {
    if (this.waiting.size < MAX_PENDING || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private wake(): void {
    const idle = this.idle;
    this.idle = [];
    for (const f of idle) f();
  }

  /** Ends the child; resolves once it is gone (its processor time then counts as this process's children's). */
  close(): Promise<void> {
    this.failure ??= new Error("face finder closed");
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGKILL");
    return gone;
  }
}
