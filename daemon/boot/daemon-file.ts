/**
 * `<data_dir>/daemon.json`: where the daemon of this data folder answers. `clipd start` (or serve)
 * writes it once it listens and removes it on a clean stop; `clipd mcp --stdio` without CLIPD_URL
 * reads it, so a desktop client's relay finds the daemon on the port it really serves (PORT, a
 * config file, port 0) rather than guessing the default. A file left by a daemon that died is
 * ignored: its pid no longer runs.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

export const DAEMON_FILE = "daemon.json";

export interface DaemonAddress {
  url: string;
  pid: number;
  started_at: string;
}

const fileOf = (dataDir: string) => path.join(dataDir, DAEMON_FILE);

/** The address a client on this machine reaches `port` at, given the host the server binds. */
export function localUrl(host: string, port: number): string {
  const any = host === "" || host === "0.0.0.0" || host === "::" || host === "localhost";
  const h = any ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

export async function writeDaemonFile(dataDir: string, url: string): Promise<void> {
  const address: DaemonAddress = { url, pid: process.pid, started_at: new Date().toISOString() };
  await writeFile(fileOf(dataDir), `${JSON.stringify(address, null, 2)}\n`);
}

/** Removes the file if it is this process's own (another daemon may have written it since). */
export async function removeDaemonFile(dataDir: string): Promise<void> {
  const found = await readDaemonFile(dataDir, { alive: false });
  if (found?.pid === process.pid) await rm(fileOf(dataDir), { force: true });
}

/** The daemon's address, when the file is there and (by default) its process still runs. */
export async function readDaemonFile(dataDir: string, opts = { alive: true }): Promise<DaemonAddress | undefined> {
  let found: DaemonAddress;
  try {
    found = JSON.parse(await readFile(fileOf(dataDir), "utf8")) as DaemonAddress;
  } catch {
    return undefined;
  }
  if (typeof found?.url !== "string" || typeof found.pid !== "number") return undefined;
  if (opts.alive && !running(found.pid)) return undefined;
  return found;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
