// Work from the watch folder reaches the account's webhooks when watch.account_id names the account.
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { testBackends } from "../helpers/backends.js";
import { runClipd, spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { fixtureMedia } from "../helpers/media.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

describe.each(testBackends())("watch-folder events to webhooks on %s", (backend) => {
  const procs: Spawned[] = [];
  let rx: Receiver | undefined;
  afterEach(async () => {
    procs.forEach((p) => p.kill("SIGKILL"));
    await rx?.close();
  });

  it("delivers episode.ready and clip.ready, signed, for a file dropped in the inbox", async () => {
    rx = await startReceiver();
    const url = rx.path("/hook", [200]);
    const d = await daemonEnv(backend, {
      network: { allow_loopback: true, extra_ca: rx.server.caPath },
      render: { render_top: 1 },
      watch: { enabled: true, stable_ms: 500, folders: [{ path: "inbox", pipeline: "episode" }] },
    });
    // The account exists before the daemon starts (the CLI opens the database itself).
    const acc = await runClipd(["account", "create", "--email", "studio@example.com"], d.env);
    const accountId = JSON.parse(acc.output.trim().split("\n").pop()!).account_id;
    const key = await runClipd(
      ["key", "create", "--account", accountId, "--mode", "live", "--scopes", "webhooks"],
      d.env,
    );
    const live = JSON.parse(key.output.trim().split("\n").pop()!).key;
    const cfgFile = d.env.CLIPD_CONFIG!;
    const { parse } = await import("yaml");
    const cfg = parse(await (await import("node:fs/promises")).readFile(cfgFile, "utf8"));
    cfg.watch.account_id = accountId;
    await writeFile(cfgFile, stringify(cfg));

    const daemon = spawnClipd(["start"], d.env);
    procs.push(daemon);
    const base = (await daemon.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1]!;
    const res = await fetch(`${base}/api/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${live}`, "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });
    expect(res.status).toBe(201);
    rx.secret("/hook", ((await res.json()) as any).secret);

    await mkdir(path.join(d.dataDir, "inbox"), { recursive: true });
    await copyFile(fixtureMedia("jfk.wav"), path.join(d.dataDir, "inbox", "jfk.wav"));
    await until(() => rx!.receipts.length >= 2, {
      what: "episode.ready and clip.ready at the receiver",
      timeoutMs: 150_000,
      intervalMs: 250,
    });
    const types = rx.receipts.map((r) => JSON.parse(r.body).type);
    expect(types).toEqual(["episode.ready", "clip.ready"]);
    expect(rx.receipts.every((r) => r.verified)).toBe(true);
    const ready = JSON.parse(rx.receipts[0]!.body);
    expect(ready).toMatchObject({
      livemode: true,
      data: { origin: "watch", origin_ref: "jfk.wav", pipeline: "episode" },
    });
    expect(ready.data.media.duration).toBeGreaterThan(10.9);
  }, 240_000);
});
