// `clipd account create` against a running daemon on the embedded database goes through the
// daemon's ops route. With no server.ops_token configured, the daemon makes one in
// <data_dir>/ops.token and the CLI reads it there; the token never appears in the daemon's log.
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runClipd, spawnClipd, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

describe("ops token for the CLI", () => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("the CLI reaches a running daemon on PGlite with the token the daemon wrote", async () => {
    // The CLI finds the daemon at server.port, so the daemon needs a known one.
    const d = await daemonEnv("pglite", { server: { port: await freePort() } }, { CLIPD_OPS_TOKEN: "" });
    const daemon = spawnClipd(["start"], d.env);
    procs.push(daemon);
    await daemon.waitFor(/is up: /, 90_000);
    const made = await runClipd(["account", "create", "--email", "cli-ops@example.com"], d.env, { timeoutMs: 60_000 });
    expect(made.code, made.output).toBe(0);
    expect(JSON.parse(made.output.trim().split("\n").pop()!)).toMatchObject({ account_id: expect.any(String) });
    const token = (await readFile(path.join(d.dataDir, "ops.token"), "utf8")).trim();
    expect(token.length).toBeGreaterThan(20);
    expect(daemon.output()).not.toContain(token);
  });
});
