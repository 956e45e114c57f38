// The ops routes (admin, runs) always need the ops token. A test server without server.ops_token
// keeps the one it made in <data_dir>/ops.token; this reads it the way the CLI does, so tests
// present it with one call instead of knowing where it lives.
import { readOpsToken } from "../../daemon/ops/ops-token.js";
import type { TestApp } from "./app.js";

/** The Authorization header for the ops routes of `t`. */
export async function opsAuth(t: Pick<TestApp, "app">): Promise<{ authorization: string }> {
  const token = await readOpsToken(t.app.config);
  if (!token)
    throw new Error(
      `no ops token: server.ops_token is unset and ${t.app.config.data_dir}/ops.token ` +
        `is missing (is the serve role running?)`,
    );
  return { authorization: `Bearer ${token}` };
}
