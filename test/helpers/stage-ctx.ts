// Builds a real StageContext for calling a stage's run() directly in tests: a real temp folder,
// real local storage and a silent logger. Nothing here is faked; it is just the runner left out.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { defineLocalStorage } from "../../daemon/kit/storage.js";
import type { StageContext } from "../../daemon/engine/stage.js";

export interface TestStageCtx extends StageContext<any> {
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
  return {
    signal: extra.signal ?? new AbortController().signal,
    log: pino({ level: process.env.CLIPD_TEST_LOG ?? "silent" }),
    progress: (p, note) => void progressCalls.push([p, note]),
    progressCalls,
    workdir: path.join(base, "work"),
    storage: defineLocalStorage(path.join(base, "storage")),
    runId: extra.runId ?? "00000000-0000-4000-8000-000000000001",
    stepId: "0",
    pipeline: "test",
    options,
    config: extra.config ?? {},
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
