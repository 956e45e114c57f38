// Opens a real clipd app in-process on a test backend, with the test stage plugins and pipelines.
import path from "node:path";
import pino from "pino";
import { loadConfig, mergeDeep } from "../../config/loader.js";
import { openApp, type ClipdApp } from "../../daemon/boot/app.js";
import { startRoles, type Role, type RunningRoles } from "../../daemon/boot/roles.js";
import { backendEnv, type Backend } from "./backends.js";
import { repoRoot } from "./cli.js";

export const TEST_PLUGIN = path.join(repoRoot, "test", "fixtures", "stages", "test-stages.mjs");
export const TEST_PIPELINES = path.join(repoRoot, "test", "fixtures", "pipelines");

export interface TestApp {
  app: ClipdApp;
  roles: RunningRoles;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function openTestApp(
  backend: Backend,
  opts: { roles?: Role[]; overrides?: Record<string, any> } = {},
): Promise<TestApp> {
  const { env, dataDir } = await backendEnv(backend);
  process.env.CLIPD_TEST_MARKERS = path.join(dataDir, "markers");
  const cfg = loadConfig({
    env,
    overrides: mergeDeep(
      {
        plugins: [TEST_PLUGIN],
        pipelines: { ops_dir: TEST_PIPELINES },
        watch: { enabled: false },
        server: { port: 0, host: "127.0.0.1" },
        log: { level: "silent" },
        // No test ever fetches a whisper model from the internet (test/integration/auto-model.test.ts serves one).
        transcribe: { auto_model: "off" },
        queue: { heartbeat_seconds: 10 },
        // Every test client comes from 127.0.0.1; the per-address limits are tested with their own
        // values (test/api/web-abuse.test.ts).
        web: { signups_per_address_per_day: 1000, mails_per_address_per_hour: 1000 },
      },
      opts.overrides ?? {},
    ),
  });
  const app = await openApp(cfg, pino({ level: process.env.CLIPD_TEST_LOG ?? "silent" }));
  const roles = await startRoles(app, opts.roles ?? ["work"]);
  return {
    app,
    roles,
    dataDir,
    env: { ...env, CLIPD_TEST_MARKERS: process.env.CLIPD_TEST_MARKERS },
    close: () => roles.stop("test done"),
  };
}
