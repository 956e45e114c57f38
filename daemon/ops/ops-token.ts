/**
 * The ops token when `server.ops_token` is not set. The ops routes (admin, runs) never answer
 * without a token: trusting loopback let anything on the host (a reverse proxy above all) reach
 * account, key and credit creation. So a server without a configured token makes one and keeps it
 * in `<data_dir>/ops.token`, readable by its owner only; the CLI (`clipd account create` against a
 * running daemon on the embedded database) and scripts on the host read it from there.
 *
 * One file per data folder: a server that finds a token there keeps it, so several processes on
 * one data folder and a restarted one agree, and the file is made atomically (link of a finished
 * temporary file), so a reader never sees half a token. The token itself is never logged.
 */
import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

export const OPS_TOKEN_FILE = "ops.token";

interface OpsConfig {
  data_dir: string;
  server: { ops_token: string };
}

export const opsTokenPath = (cfg: Pick<OpsConfig, "data_dir">) => path.join(cfg.data_dir, OPS_TOKEN_FILE);

/** The token written in the data folder, if there is one. */
export async function readOpsTokenFile(cfg: Pick<OpsConfig, "data_dir">): Promise<string | undefined> {
  try {
    return (await readFile(opsTokenPath(cfg), "utf8")).trim() || undefined;
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    if (err?.code === "ENOENT") return undefined;
    throw err;
  }
}

/** The token a client presents: server.ops_token when set, else the data folder's. */
export async function readOpsToken(cfg: OpsConfig): Promise<string | undefined> {
  return cfg.server.ops_token || readOpsTokenFile(cfg);
}

/**
 * The token the ops routes take: server.ops_token when set, else the data folder's, made (mode
 * 0600) when missing. `made` tells the caller whether to say where it went.
 */
export async function ensureOpsToken(cfg: OpsConfig): Promise<{ token: string; file?: string; made: boolean }> {
  if (cfg.server.ops_token) return { token: cfg.server.ops_token, made: false };
  const file = opsTokenPath(cfg);
  const kept = await readOpsTokenFile(cfg);
  if (kept) {
    await chmod(file, 0o600); // a copy restored with looser rights is tightened again
    return { token: kept, file, made: false };
  }
  await mkdir(cfg.data_dir, { recursive: true });
  const token = `ops_${randomBytes(32).toString("base64url")}`;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(tmp, `${token}\n`, { mode: 0o600 });
  try {
    await link(tmp, file);
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    if (err?.code !== "EEXIST") throw err;
    // Another process on this data folder made it first: use theirs.
    const theirs = await readOpsTokenFile(cfg);
    if (!theirs) throw err;
    return { token: theirs, file, made: false };
  } finally {
    await rm(tmp, { force: true });
  }
  return { token, file, made: true };
}
