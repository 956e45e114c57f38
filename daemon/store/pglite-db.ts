/** The embedded backend: PGlite in the data folder (or in memory), one connection, one process. */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { DatabaseError, uncounted, type Db } from "./db-contract.js";

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    return err?.code === "EPERM";
  }
}

/**
 * Opens the embedded database in `dir` (or in memory for "memory://"). A lock file keeps a second
 * process off the same folder: PGlite is single-process, and two writers would corrupt it.
 */
export async function openPglite(dir: string): Promise<Db> {
  const { PGlite } = await import("@electric-sql/pglite");
  let lockFile: string | undefined;
  if (dir !== "memory://") {
    await mkdir(dir, { recursive: true });
    lockFile = path.join(path.dirname(dir), path.basename(dir) + ".lock");
    const holder = Number(await readFile(lockFile, "utf8").catch(() => ""));
    if (holder && holder !== process.pid && pidAlive(holder)) {
      throw new DatabaseError(
        `the embedded database in ${dir} is in use by process ${holder}. Stop that ` +
          `process, or set DATABASE_URL to share a PostgreSQL server between processes`,
      );
    }
    await writeFile(lockFile, String(process.pid));
  }
  let pglite: PGlite;
  try {
    pglite = dir === "memory://" ? await PGlite.create() : await PGlite.create(dir);
  } catch (err) {
    if (lockFile) await rm(lockFile, { force: true });
    throw new DatabaseError(`cannot open the embedded database in ${dir}: ${(err as Error).message}`, { cause: err });
  }
  // Counted after a statement or transaction ends (failed ones too): a read begun after that sees it.
  // A plain top-level select changes nothing here (the schema's only triggers fire on writes); pg-boss's
  // own statements (raw.pglite) touch only its schema.
  let writes = 0;
  const moved = new Set<() => void>();
  const counted = <T>(p: Promise<T>) =>
    p.finally(() => {
      writes++;
      for (const fn of moved) fn();
    });
  return {
    kind: "pglite",
    raw: { pglite },
    query: (sql, params) =>
      // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
      (uncounted(sql) ? pglite.query(sql, params as any[]) : counted(pglite.query(sql, params as any[]))) as any,
    transaction: (fn) =>
      // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
      counted(pglite.transaction((tx) => fn({ query: (sql, params) => tx.query(sql, params as any[]) as any }))),
    writes: () => writes,
    onWrites(fn) {
      moved.add(fn);
      return () => void moved.delete(fn);
    },
    async listen(channel, onPayload) {
      const off = await pglite.listen(channel, onPayload);
      return async () => off();
    },
    async notify(channel, payload) {
      await pglite.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await pglite.close();
      if (lockFile) await rm(lockFile, { force: true });
    },
  };
}
