/**
 * Disk full, shared by test/chaos/disk-full.test.ts and bench/chaos/disk-full.ts: a real clipd
 * whose storage/ and work/ folders are small tmpfs mounts (root only; `mountTmpfs` says why it
 * cannot), filled up by a filler file, then (1) PUT to a signed upload link and (2) a paid clip
 * export whose ffmpeg output cannot be written. Each must end cleanly: 507 insufficient_storage or
 * a job failed with that code, no partial file left, the export's charge given back; and once the
 * filler goes, the same work succeeds.
 */
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, statfs, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeVideo } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { openChaosServer, type ChaosServer } from "./server.js";

/** Mounts a tmpfs of `mib` MiB at `dir`; returns why not when this machine does not allow it. */
export function mountTmpfs(dir: string, mib: number): string | undefined {
  if (process.platform !== "linux") return `tmpfs mounts need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mib}m`, "tmpfs", dir], { stdio: "pipe" });
    return undefined;
  } catch (err: any) {
    return `mount -t tmpfs was refused: ${String(err.stderr || err.message).trim()}`;
  }
}

/** Whether this machine lets us mount a tmpfs (tried on a scratch folder). */
export async function tmpfsRefusal(): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-tmpfs-probe-"));
  const why = mountTmpfs(dir, 1);
  if (!why) execFileSync("umount", [dir]);
  await rm(dir, { recursive: true, force: true });
  return why;
}

/** Every file under `dir` (relative paths), the filler left out. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (e.isFile() && e.name !== "filler") out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  }
  return out;
}

export interface DiskWorld {
  server: ChaosServer;
  dataDir: string;
  storageDir: string;
  workDir: string;
  /** Fills `dir` with a filler file until only `leaveBytes` are free. */
  fill(dir: string, leaveBytes: number): Promise<void>;
  /** Removes the filler of `dir`. */
  free(dir: string): Promise<void>;
  close(): Promise<void>;
}

export async function openDiskWorld(mib: number, overrides: Record<string, any> = {}): Promise<DiskWorld> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "clipd-disk-full-"));
  const storageDir = path.join(dataDir, "storage");
  const workDir = path.join(dataDir, "work");
  const mounted: string[] = [];
  for (const dir of [storageDir, workDir]) {
    await mkdir(dir, { recursive: true });
    const why = mountTmpfs(dir, mib);
    if (why) {
      for (const m of mounted) execFileSync("umount", [m]);
      throw new Error(why);
    }
    mounted.push(dir);
  }
  const server = await openChaosServer("pglite", { data_dir: dataDir, ...overrides });
  return {
    server,
    dataDir,
    storageDir,
    workDir,
    async fill(dir, leaveBytes) {
      const { bavail, bsize } = await statfs(dir);
      const size = Math.max(0, bavail * bsize - leaveBytes);
      await writeFile(path.join(dir, "filler"), Buffer.alloc(size));
    },
    free: (dir) => rm(path.join(dir, "filler"), { force: true }),
    async close() {
      await server.close();
      for (const m of mounted) execFileSync("umount", ["-l", m]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface UploadOutcome {
  status: number;
  body: any;
  leftover: string[];
}

/** A new upload episode's signed link, PUT with `bytes` of MP3 (its head is real, then zeros). */
export async function putUpload(w: DiskWorld, key: string, bytes: number, mp3: Buffer): Promise<UploadOutcome> {
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const ep = (await (
    await fetch(`${w.server.base}/api/v1/episodes`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "big", file_name: "big.mp3" }),
    })
  ).json()) as any;
  const link = ep.upload?.url ?? ep.upload_url;
  if (!link) throw new Error(`no upload link: ${JSON.stringify(ep)}`);
  const body = Buffer.alloc(bytes);
  mp3.copy(body, 0, 0, Math.min(mp3.length, bytes));
  const res = await fetch(link, { method: "PUT", headers: { "content-type": "audio/mpeg" }, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, leftover: await filesUnder(path.join(w.storageDir, "uploads")) };
}

export interface ExportOutcome {
  job: any;
  ledger: Array<[string, number]>;
  leftover: string[];
  work: string[];
}

/** A ready episode with one real cut clip in storage and its 5 free exports used, then a paid export of it. */
export async function paidExport(
  w: DiskWorld,
  acc: { accountId: string; live: string },
  beforeStart?: () => Promise<void>,
): Promise<ExportOutcome> {
  const { db } = w.server.app;
  const episodeId = crypto.randomUUID();
  const clipId = crypto.randomUUID();
  const cutKey = `runs/${crypto.randomUUID()}/clip-c001.mp4`;
  await mkdir(path.dirname(path.join(w.storageDir, cutKey)), { recursive: true });
  await copyFile(await makeVideo({ seconds: 4, width: 540, height: 960 }), path.join(w.storageDir, cutKey));
  await db.query(`insert into episodes (id, account_id, name, status, state) values ($1, $2, 'made', 'ready', '{}')`, [
    episodeId,
    acc.accountId,
  ]);
  const data = {
    number: 1,
    ref: "c001",
    title: "Clip 1",
    start: 0,
    end: 4,
    duration: 4,
    pieces: [{ start: 0, end: 4 }],
    score: { value: 0.5, reasons: [] },
  };
  await db.query(
    `insert into clips (id, episode_id, account_id, number, ref, data, cut) values ($1, $2, $3, 1, 'c001', $4, $5)`,
    [
      clipId,
      episodeId,
      acc.accountId,
      JSON.stringify(data),
      JSON.stringify({ key: cutKey, ref: "c001", duration: 4, width: 540, height: 960 }),
    ],
  );
  for (let i = 0; i < 5; i++) {
    await db.query(
      `insert into jobs (id, account_id, episode_id, clip_id, kind, status) values ` +
        `(gen_random_uuid(), $1, $2, $3, 'cut', 'failed')`,
      [acc.accountId, episodeId, clipId],
    );
  }
  await beforeStart?.(); // e.g. fill storage/ now that the cut is in it
  const auth = { authorization: `Bearer ${acc.live}`, "content-type": "application/json" };
  const started = (await (
    await fetch(`${w.server.base}/api/v1/episodes/${episodeId}/clips`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ clips: [1] }),
    })
  ).json()) as any;
  const jobId = started.jobs?.[0]?.job_id;
  if (!jobId) throw new Error(`export not started: ${JSON.stringify(started)}`);
  const job = await waitFor(
    async () => {
      const r = (await (await fetch(`${w.server.base}/api/v1/jobs/${jobId}`, { headers: auth })).json()) as any;
      return ["failed", "completed"].includes(r.status) ? r : undefined;
    },
    { what: `job ${jobId} to end`, timeoutMs: 120_000, intervalMs: 200 },
  );
  const { rows } = await db.query(`select kind, cents from ledger where ref = $1 order by created_at, id`, [jobId]);
  const { rows: run } = await db.query(`select run_id from jobs where id = $1`, [jobId]);
  // The export's run writes under runs/<its id>/ (the cut it reads is elsewhere) and works in work/<its id>/.
  const leftover = await filesUnder(path.join(w.storageDir, "runs", run[0].run_id));
  const work = await filesUnder(path.join(w.workDir, run[0].run_id));
  return { job, ledger: rows.map((r: any) => [r.kind, Number(r.cents)]), leftover, work };
}

export const sizeOf = async (file: string) => (await stat(file)).size;
