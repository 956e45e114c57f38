// A `clipd serve` process for bench/api: its database seeded with an account, a live key and one
// episode, on PostgreSQL (databaseUrl) or on PGlite in its own data folder.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runAdmin } from "../daemon/account/admin.js";
import { AccountService } from "../daemon/account/accounts.js";
import { openDb } from "../daemon/store/db.js";
import { migrate } from "../daemon/store/migrate.js";
import { freePort } from "./_pg.js";
import { startProcess } from "./_proc.js";

export interface Served {
  base: string;
  key: string;
  episodeId: string;
  /** Stops the server and waits for its exit (so a --cpu-prof profile is written). */
  stop(): Promise<void>;
}

export async function startServe(opts: {
  root: string;
  dataDir: string;
  databaseUrl?: string;
  profileDir?: string;
}): Promise<Served> {
  mkdirSync(opts.dataDir, { recursive: true });
  const db = await openDb({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir });
  let key: string;
  try {
    await migrate(db);
    const accounts = new AccountService(db);
    const acc = await runAdmin(accounts, "account.create", {
      email: "bench@example.com",
      credit_cents: 10_000_000,
      plan: true,
    });
    key = String(
      (
        await runAdmin(accounts, "key.create", {
          account: acc.account_id,
          mode: "live",
          scopes: "clips.read,clips.write",
        })
      ).key,
    );
  } finally {
    // PGlite is one process's: the bench lets go of it before the server opens it.
    await db.close();
  }
  const cfgFile = path.join(opts.dataDir, "clipd.yaml");
  writeFileSync(
    cfgFile,
    "api:\n  rate_limit: { requests: 100000000, window_seconds: 60 }\nwatch: " +
      "{ enabled: false }\nlog: { level: warn, pretty: false }\n",
  );
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLIPD_DATA_DIR: opts.dataDir,
    CLIPD_CONFIG: cfgFile,
    PORT: String(port),
  };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else delete env.DATABASE_URL;
  const flags = opts.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.profileDir}`] : [];
  const child = await startProcess(
    [...flags, path.join(opts.root, "dist", "daemon", "boot", "main.js"), "serve"],
    env,
    /is up:/,
  );
  const base = `http://127.0.0.1:${port}`;
  const res = await fetch(`${base}/api/v1/episodes`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", file_name: "bench.mp3" }),
  });
  const episode = (await res.json()) as { episode_id: string };
  if (res.status !== 202)
    throw new Error(`could not create the bench episode: ${res.status} ${JSON.stringify(episode)}`);
  const gone = new Promise<void>((resolve) =>
    child.exitCode !== null ? resolve() : child.once("exit", () => resolve()),
  );
  return {
    base,
    key,
    episodeId: episode.episode_id,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await gone;
    },
  };
}
