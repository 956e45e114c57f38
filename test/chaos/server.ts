/**
 * A real clipd server on loopback (work + serve roles) for the chaos suites, usable from vitest and
 * from the compiled bench scripts alike: paths come from projectRoot(), not from this file's place,
 * because under dist/ the test helpers' own repo-root guess points into dist/.
 */
import path from "node:path";
import pino from "pino";
import { loadConfig, mergeDeep, projectRoot } from "../../config/loader.js";
import { runAdmin } from "../../daemon/account/admin.js";
import { openApp, type ClipdApp } from "../../daemon/boot/app.js";
import { readOpsTokenFile } from "../../daemon/ops/ops-token.js";
import { startRoles } from "../../daemon/boot/roles.js";
import { backendEnv, type Backend } from "../helpers/backends.js";

export interface ChaosServer {
  base: string;
  app: ClipdApp;
  dataDir: string;
  /** An account with a live and a test key (all scopes unless given). */
  account(opts?: {
    creditCents?: number;
    scopes?: string[];
  }): Promise<{ accountId: string; live: string; test: string }>;
  /** The token the ops routes take: the configured one, else the one the server wrote to <data_dir>/ops.token. */
  opsToken(): Promise<string>;
  close(): Promise<void>;
}

export async function openChaosServer(
  backend: Backend = "pglite",
  overrides: Record<string, any> = {},
): Promise<ChaosServer> {
  const root = projectRoot();
  const { env, dataDir } = await backendEnv(backend);
  process.env.CLIPD_TEST_MARKERS = path.join(dataDir, "markers");
  const cfg = loadConfig({
    env,
    overrides: mergeDeep(
      {
        plugins: [path.join(root, "test", "fixtures", "stages", "test-stages.mjs")],
        pipelines: { ops_dir: path.join(root, "test", "fixtures", "pipelines") },
        watch: { enabled: false },
        // No ops_token: the server makes one in <data_dir>/ops.token, where opsToken() reads it.
        server: { port: 0, host: "127.0.0.1" },
        log: { level: "silent" },
        queue: { heartbeat_seconds: 10 },
        // The fuzzer sends thousands of requests per key; the rate limit is not what it measures.
        api: { rate_limit: { requests: 1_000_000, window_seconds: 60 } },
      },
      overrides,
    ),
  });
  const app = await openApp(cfg, pino({ level: process.env.CLIPD_TEST_LOG ?? "silent" }));
  const roles = await startRoles(app, ["work", "serve"]);
  return {
    base: roles.url!,
    app,
    dataDir,
    async account(opts = {}) {
      const email = `chaos${Date.now()}${Math.random().toString(16).slice(2, 8)}@example.com`;
      const a = await runAdmin(app.accounts, "account.create", { email, credit_cents: opts.creditCents });
      const scopes = (opts.scopes ?? ["clips.read", "clips.write", "transcripts", "webhooks"]).join(",");
      const live = await runAdmin(app.accounts, "key.create", { account: a.account_id, mode: "live", scopes });
      const test = await runAdmin(app.accounts, "key.create", { account: a.account_id, mode: "test", scopes });
      return { accountId: String(a.account_id), live: String(live.key), test: String(test.key) };
    },
    async opsToken() {
      return cfg.server.ops_token || ((await readOpsTokenFile(cfg)) ?? "");
    },
    close: () => roles.stop("chaos done"),
  };
}
