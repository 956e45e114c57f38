/**
 * Untrusted images and fonts are opened in a child process (decode-child.ts), one per file, never
 * in the server: sharp runs on libuv's thread pool, which the server's file reads share, so one
 * slow SVG used to stall every upload, download and page (issue 27). The child gets a deadline in
 * processor time (a wall-clock one refused ordinary files on a busy host, where a niced child waits
 * for a core), a wall-clock backstop of WALL_FACTOR times that, a V8 heap cap, a resident-memory cap
 * watched from here, and a lower CPU priority; it is killed (SIGKILL) the moment it passes a cap,
 * and the caller gets a LimitReached naming the field and the limit. At most DECODE_SLOTS children
 * run at once per process (plus one for an owner with nothing running); more wait their turn, going
 * round the owners (decode-slots.ts).
 * Why a process and not a worker thread: docs/decisions.md ("Untrusted files are decoded in a
 * child process").
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { LimitReached, Refused } from "../domain/errors.js";
import type { DecodeAnswer, DecodeJob } from "./decode-child.js";
import { FairSlots } from "./decode-slots.js";

export type { DecodeAnswer, DecodeJob } from "./decode-child.js";

/** How long one file may take to open, and how much memory its child may hold. */
export interface DecodeLimits {
  deadline_ms: number;
  memory_mb: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = { deadline_ms: 10_000, memory_mb: 512 };

/** Children at once in this process; each is single-threaded (sharp.concurrency(1)). */
export const DECODE_SLOTS = Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));

// Under the tests this module is TypeScript source, and Node 24 runs the child's source as it is.
const here = fileURLToPath(import.meta.url);
const CHILD = here.replace(/decode-jail\.(ts|js)$/, "decode-child.$1");

/** Shared fairly between owners (decode-slots.ts): one account's slow files do not hold up another's. */
const slots = new FairSlots(DECODE_SLOTS);
let started = 0;

/** Children started since the process began and the slots now, for tests that prove a file never reached one. */
export function decodeStats(): { started: number; running: number; waiting: Record<string, number> } {
  return { started, ...slots.snapshot() };
}

/** A child that waits this many times its processor deadline in wall time is killed anyway. */
export const WALL_FACTOR = 3;

/** Linux's USER_HZ: /proc reports processor time in these ticks on every architecture it runs on. */
const TICKS_PER_S = 100;

/** Resident memory of a process in bytes, from /proc; undefined where there is no /proc. */
async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const statm = await readFile(`/proc/${pid}/statm`, "utf8");
    return Number(statm.split(" ")[1]) * 4096;
  } catch {
    return undefined;
  }
}

/** Processor time a process has used (user + system, all its threads) in ms; undefined without /proc. */
export async function cpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(after[11]) + Number(after[12])) * 1000) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/**
 * The refusal when a deadline fires, saying which one (issue 39): the processor-time limit, or the
 * wall-clock one (the backstop of WALL_FACTOR times it, or the limit itself where processor time
 * cannot be read). Both are the one `decode_seconds` limit; `clock` and `max` say which count.
 */
const tooSlow = (field: string, l: DecodeLimits, clock: "processor" | "wall", wallMs = l.deadline_ms * WALL_FACTOR) => {
  const limit = l.deadline_ms / 1000;
  const message =
    clock === "processor"
      ? `${field}: the file took more than ${limit} s of processor time to open, the limit for one file; `
      : wallMs > l.deadline_ms
        ? `${field}: the file was still opening after ${wallMs / 1000} s of wall-clock time (${WALL_FACTOR} times ` +
          `the ${limit} s processor-time limit for one file, which it had not used up: it was waiting, not working); `
        : `${field}: the file took more than ${limit} s of wall-clock time to open, the limit for one file ` +
          `(processor time cannot be read on this system); `;
  return new LimitReached("size", "too_complex", `${message}send a simpler one`, {
    context: { field, limit: "decode_seconds", max: clock === "processor" ? limit : wallMs / 1000, clock },
  });
};
const tooHungry = (field: string, l: DecodeLimits) =>
  new LimitReached(
    "size",
    "too_complex",
    `${field}: the file needed more than ${l.memory_mb} MB of memory to open, ` +
      `the limit for one file; send a simpler one`,
    { context: { field, limit: "decode_memory_mb", max: l.memory_mb } },
  );

/**
 * Runs one job in a fresh child. Resolves with the child's answer (which may itself be a refusal
 * the caller words); rejects with LimitReached on the deadline or the memory cap, and with Refused
 * when the child dies some other way.
 */
export async function decodeUntrusted(
  job: DecodeJob,
  field: string,
  limits: DecodeLimits = DEFAULT_DECODE_LIMITS,
  /** Whose file it is (an account id): slots go round the owners in turn. */
  owner = "clipd",
): Promise<DecodeAnswer> {
  const release = await slots.acquire(owner, field);
  started++;
  try {
    return await runChild(job, field, limits);
  } finally {
    release();
  }
}

function runChild(job: DecodeJob, field: string, limits: DecodeLimits): Promise<DecodeAnswer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(CHILD, [], {
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      execArgv: [`--max-old-space-size=${Math.max(64, Math.floor(limits.memory_mb / 2))}`, "--no-warnings"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (s: string) => void (stderr = (stderr + s).slice(-2000)));
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearInterval(watch);
      if (child.exitCode === null) child.kill("SIGKILL");
      fn();
    };
    // The wall-clock backstop: a child starved of processor time or stuck in a wait still ends.
    let deadline = setTimeout(
      () => finish(() => reject(tooSlow(field, limits, "wall"))),
      limits.deadline_ms * WALL_FACTOR,
    );
    // Processor time is counted from the job's hand-over, so starting Node and loading sharp is free.
    let cpuAtReady: number | undefined;
    const watch = setInterval(() => {
      const pid = child.pid;
      if (pid === undefined) return;
      void residentBytes(pid).then((rss) => {
        if (rss !== undefined && rss > limits.memory_mb * 1024 * 1024) finish(() => reject(tooHungry(field, limits)));
      });
      if (cpuAtReady === undefined) return;
      const base = cpuAtReady;
      void cpuMs(pid).then((ms) => {
        if (ms !== undefined && ms - base > limits.deadline_ms)
          finish(() => reject(tooSlow(field, limits, "processor")));
      });
    }, 100);
    child.on("spawn", () => {
      // Below the server's priority, so a busy child never starves the requests it shares cores with.
      try {
        if (child.pid !== undefined) os.setPriority(child.pid, 10);
      } catch {
        /* not permitted here: the deadline still holds */
      }
    });
    const handOver = async () => {
      const ms = child.pid === undefined ? undefined : await cpuMs(child.pid);
      if (done) return;
      if (ms === undefined) {
        // No /proc: processor time cannot be read, so the wall clock holds the deadline alone.
        clearTimeout(deadline);
        deadline = setTimeout(
          () => finish(() => reject(tooSlow(field, limits, "wall", limits.deadline_ms))),
          limits.deadline_ms,
        );
      }
      cpuAtReady = ms;
      child.send(job);
    };
    child.on("message", (m: DecodeAnswer | { ready: true }) => {
      if ("ready" in m) void handOver();
      else finish(() => resolve(m));
    });
    child.on("error", (err) => finish(() => reject(err)));
    child.on("exit", (code, signal) => {
      // V8 out of its heap ends the child with a fatal error: that is the memory cap too.
      if (/heap out of memory|Allocation failed/i.test(stderr)) return finish(() => reject(tooHungry(field, limits)));
      finish(() =>
        reject(
          new Refused("unsupported_type", `${field}: the file could not be read`, {
            context: { field, exit: signal ?? code },
          }),
        ),
      );
    });
  });
}
