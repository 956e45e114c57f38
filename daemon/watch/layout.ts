/**
 * A watched folder's layout (inbox/, processing/, outbox/, failed/ side by side) and how a file
 * that cannot be processed lands in failed/ with its reason.
 */
import { existsSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import path from "node:path";

export interface FolderLayout {
  inbox: string;
  pipeline: string;
  processing: string;
  outbox: string;
  failed: string;
}

export function folderLayout(dataDir: string, folder: { path: string; pipeline: string }): FolderLayout {
  const inbox = path.resolve(dataDir, folder.path);
  const parent = path.dirname(inbox);
  return {
    inbox,
    pipeline: folder.pipeline,
    processing: path.join(parent, "processing"),
    outbox: path.join(parent, "outbox"),
    failed: path.join(parent, "failed"),
  };
}

/** The name itself, or name-2, name-3… when a file of that name is there already. */
export async function freeName(dir: string, name: string): Promise<string> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${stem}-${i}${ext}`;
    if (!existsSync(path.join(dir, candidate))) return candidate;
  }
}

/** Moves a file (and its sidecar) to failed/ and writes <name>.error.txt beside it. */
export async function moveToFailed(l: FolderLayout, name: string, error: Record<string, unknown>): Promise<void> {
  const target = await freeName(l.failed, name);
  const sidecar = existsSync(path.join(l.processing, `${name}.yaml`));
  await rename(path.join(l.processing, name), path.join(l.failed, target)).catch(() => {});
  if (sidecar) await rename(path.join(l.processing, `${name}.yaml`), path.join(l.failed, `${target}.yaml`));
  const lines = [
    `clipd could not process ${name}.`,
    ``,
    `code: ${error.code}`,
    `reason: ${error.message}`,
    ...(error.stage ? [`stage: ${error.stage}`] : []),
    ...(error.run_id ? [`run: ${error.run_id} (GET /api/v1/runs/${error.run_id})`] : []),
    ...(sidecar ? [`sidecar: ${target}.yaml`] : []),
    `time: ${new Date().toISOString()}`,
    ``,
    `Fix the cause and drop the file${sidecar ? " and its sidecar" : ""} into the inbox again.`,
  ];
  await writeFile(path.join(l.failed, `${target}.error.txt`), lines.join("\n") + "\n");
}
