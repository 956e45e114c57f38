// Writes a config file for a clipd child process that loads the test stages and pipelines.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import { mergeDeep } from "../../config/loader.js";
import { TEST_PIPELINES, TEST_PLUGIN } from "./app.js";
import { backendEnv, type Backend } from "./backends.js";

export const OPS_TOKEN = "ops_test_token_0123456789abcdef";

export async function daemonEnv(
  backend: Backend,
  overrides: Record<string, any> = {},
  env: Record<string, string> = {},
) {
  const b = await backendEnv(backend, env);
  const cfg = mergeDeep(
    {
      plugins: [TEST_PLUGIN],
      pipelines: { ops_dir: TEST_PIPELINES },
      watch: { enabled: false },
      server: { port: 0, host: "127.0.0.1" },
      log: { pretty: false },
      queue: { heartbeat_seconds: 10, shutdown_grace_seconds: 10 },
    },
    overrides,
  );
  const file = path.join(b.dataDir, "clipd.test.yaml");
  await writeFile(file, stringify(cfg));
  const markers = path.join(b.dataDir, "markers");
  return {
    ...b,
    env: { ...b.env, CLIPD_CONFIG: file, CLIPD_TEST_MARKERS: markers, CLIPD_OPS_TOKEN: OPS_TOKEN, ...env },
    markers,
  };
}
