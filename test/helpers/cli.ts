// Runs the real `clipd` CLI (the built dist/) as a child process, as a user or an ops script would.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../../config/loader.js";

// projectRoot() finds package.json, so the compiled benches (under dist/) that use these helpers
// find the same root as vitest does.
export const repoRoot = projectRoot();
const MAIN = path.join(repoRoot, "dist", "daemon", "boot", "main.js");

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches, rejects on exit or timeout. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  kill(sig?: NodeJS.Signals): void;
}

export function spawnClipd(args: string[], env: NodeJS.ProcessEnv, opts: { cwd?: string } = {}): Spawned {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...env, FORCE_COLOR: "0" },
    cwd: opts.cwd ?? repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    kill: (sig = "SIGTERM") => void child.kill(sig),
    waitFor(re, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) {
            cleanup();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${re}; output so far:\n${out.slice(-4000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (!listeners.has(check)) return;
          cleanup();
          reject(new Error(`clipd exited (${code}) before ${re}; output:\n${out.slice(-4000)}`));
        });
        check();
      });
    },
  };
}

/** Runs the CLI to completion. */
export async function runClipd(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const s = spawnClipd(args, env, opts);
  const timer = setTimeout(() => s.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const code = await s.exited;
  clearTimeout(timer);
  return { code, output: s.output() };
}

/** Polls until a state is reached (see wait.ts); kept under this name for the tests that import it from here. */
export { waitFor as until } from "./wait.js";
