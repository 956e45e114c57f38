// Builds a real StageContext for calling a stage's run() directly in tests: a real temp folder,
// real local storage and a silent logger. Nothing here is faked; it is just the runner left out.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { checkKey, defineLocalStorage, type LocalStorage, type Storage } from "../../daemon/storage/storage.js";
import type { StageContext } from "../../daemon/engine/stage.js";

export interface TestStageCtx extends StageContext<any> {
  storage: LocalStorage;
  /** The stored file's path, for checking outputs with tools that take paths (storedPath). */
  fileOf(key: string): string;
  progressCalls: Array<[number, string | undefined]>;
  cleanup(): Promise<void>;
}

export async function makeStageCtx(
  options: Record<string, unknown> = {},
  extra: { config?: Record<string, any>; runId?: string; signal?: AbortSignal } = {},
): Promise<TestStageCtx> {
  const base = await mkdtemp(path.join(os.tmpdir(), "clipd-stage-"));
  const progressCalls: Array<[number, string | undefined]> = [];
  await mkdir(path.join(base, "work"), { recursive: true });
  const storage = defineLocalStorage(path.join(base, "storage"));
  return {
    signal: extra.signal ?? new AbortController().signal,
    log: pino({ level: process.env.CLIPD_TEST_LOG ?? "silent" }),
    progress: (p, note) => void progressCalls.push([p, note]),
    progressCalls,
    workdir: path.join(base, "work"),
    storage,
    fileOf: (key) => storedPath(storage, key),
    runId: extra.runId ?? "00000000-0000-4000-8000-000000000001",
    stepId: "0",
    pipeline: "test",
    options,
    config: extra.config ?? {},
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * Where the local-disk storage keeps a key. Production code has no such call (Storage hides its
 * layout); tests use it to look at stored files with ffprobe or sharp, or at what a folder holds.
 */
export function storedPath(storage: Storage, key: string): string {
  const root = (storage as Partial<LocalStorage>).root;
  if (!root) throw new Error("storedPath needs the local-disk storage");
  return path.join(root, checkKey(key));
}
