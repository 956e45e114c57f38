// wait_for_episode and wait_for_job through the official MCP SDK client, on episodes whose import
// never ends (the link sends a first chunk, then nothing) until they are cancelled: the wait's limits
// stand in its schema and out-of-range values are refused in plain words, waits read nothing while
// nothing changes and all wake at once on a change, one key holds at most MAX_WAITS_PER_KEY waits,
// time held counts against the key's rate limit, and progress notifications only rise.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCacheOf } from "../../facade/read-cache.js";
import { MAX_WAITS_PER_KEY, waitWatchOf } from "../../facade/wait-watch.js";
import { CHARGE_EVERY_SECONDS, DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS } from "../../facade/operations/waits.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { mcpClient, ok, refusal } from "../helpers/mcp.js";
import { waitFor } from "../helpers/wait.js";

describe("MCP wait tools", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  let client: Client;
  let live: string;
  let keyId: string;
  beforeAll(async () => {
    media = await startHttpsServer({
      "/never.wav": (_req, res) => {
        res.writeHead(200, { "content-type": "audio/wav", "content-length": String(10_000_000) });
        res.write(Buffer.alloc(4096));
      },
      // A slow link: 256 KB every 150 ms, 30 times, then nothing (the import moves, then stands).
      "/slow.wav": (_req, res) => {
        res.writeHead(200, { "content-type": "audio/wav", "content-length": String(10_000_000) });
        let sent = 0;
        const t = setInterval(() => {
          if (++sent > 30 || res.destroyed) return clearInterval(t);
          res.write(Buffer.alloc(256 * 1024));
        }, 150);
      },
    });
    s = await openApiServer("pglite", {
      network: { allow_loopback: true, extra_ca: media.caPath },
      api: { rate_limit: { requests: 10_000, window_seconds: 3600 } },
    });
    live = (await s.account({ creditCents: 5000 })).live;
    client = await mcpClient(s.base, live);
    keyId = ok(await client.callTool({ name: "get_me", arguments: {} })).key.id;
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await s?.close();
    await media?.close();
  });

  /** An episode whose import has begun and then stands still (or, from /slow.wav, moves for a while). */
  const newEpisode = async (link = "/never.wav") => {
    const id = ok(await client.callTool({ name: "create_episode", arguments: { source_url: media.url(link) } }))
      .episode_id as string;
    await waitFor(
      async () =>
        (
          await s.app.db.query(`select 1 from runs where origin_ref = $1 and progress_note is not null`, [
            `episode:${id}`,
          ])
        ).rows[0],
      { what: "the import under way" },
    );
    return id;
  };

  it("states its limits in the schema and refuses what lies outside them in plain words", async () => {
    const { tools } = await client.listTools();
    for (const name of ["wait_for_job", "wait_for_episode"]) {
      const arg = tools.find((t) => t.name === name)!.inputSchema.properties!.timeout_seconds;
      expect(arg).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: MAX_WAIT_SECONDS,
        default: DEFAULT_WAIT_SECONDS,
      });
    }
    // Every wait a plain SDK client can ask for ends before the client's own 60 s request timeout.
    expect(MAX_WAIT_SECONDS).toBeLessThan(60);
    const id = await newEpisode();
    for (const [value, said] of [
      [500, `at most ${MAX_WAIT_SECONDS}`],
      [90, `at most ${MAX_WAIT_SECONDS}`],
      [0, "at least 1"],
      [2.5, "whole number"],
    ] as const) {
      const e = refusal(
        await client.callTool({ name: "wait_for_episode", arguments: { episode_id: id, timeout_seconds: value } }),
      );
      expect(e).toMatchObject({ code: "invalid_request", field: "timeout_seconds" });
      expect(e.message).toContain(said);
      expect(e.message).not.toMatch(/pattern|\^|\\d/);
    }
  });

  it("reads nothing while nothing changes, bounds a key's waits, and wakes every wait on the change", async () => {
    const id = await newEpisode();
    const cache = readCacheOf(s.app.db);
    const read = cache.read.bind(cache);
    let reads = 0;
    cache.read = (key, load) => {
      if (key.endsWith(`:${id}`)) reads++;
      return read(key, load);
    };
    try {
      const waits = Array.from({ length: MAX_WAITS_PER_KEY }, () =>
        client.callTool({ name: "wait_for_episode", arguments: { episode_id: id, timeout_seconds: 40 } }),
      );
      await waitFor(() => waitWatchOf(s.app.db).holding(keyId) === MAX_WAITS_PER_KEY || undefined, {
        what: "every wait held",
      });
      const e = refusal(await client.callTool({ name: "wait_for_episode", arguments: { episode_id: id } }));
      expect(e).toMatchObject({ code: "too_many_waits", limit: MAX_WAITS_PER_KEY });
      expect(e.message).toContain(String(MAX_WAITS_PER_KEY));
      // The measure, not a synchronisation: polling waits would have read about 30 times by now
      // (a worker's heartbeat landing in the window is one change, and one shared read).
      const held = reads;
      await new Promise((r) => setTimeout(r, 1500));
      expect(reads - held, "reads while nothing changed").toBeLessThanOrEqual(1);
      expect(held, "the waits' first reads, shared").toBeLessThanOrEqual(2);
      const t0 = Date.now();
      ok(await client.callTool({ name: "cancel_episode", arguments: { episode_id: id } }));
      const answers = (await Promise.all(waits)).map(ok);
      expect(Date.now() - t0).toBeLessThan(5000);
      for (const a of answers) expect(a).toMatchObject({ status: "failed", done: true });
      expect(reads - held, "the change's reads, shared by all the waits").toBeLessThan(MAX_WAITS_PER_KEY);
      expect(waitWatchOf(s.app.db).holding(keyId)).toBe(0);
    } finally {
      cache.read = read;
    }
  });

  it("counts the time a wait holds against the key's rate limit", async () => {
    const id = await newEpisode();
    const remaining = async () => Number((await s.call(live, "GET", "/api/v1/me")).headers.get("ratelimit-remaining"));
    const before = await remaining();
    const seconds = CHARGE_EVERY_SECONDS + 1;
    const w = ok(
      await client.callTool({ name: "wait_for_episode", arguments: { episode_id: id, timeout_seconds: seconds } }),
    );
    expect(w).toMatchObject({ done: false, status: expect.any(String) });
    // The GET, the wait itself, and one more for the CHARGE_EVERY_SECONDS it held.
    expect(before - (await remaining())).toBe(3);
  });

  it("sends progress notifications whose values only rise", async () => {
    const id = await newEpisode("/slow.wav");
    const heard: Array<{ progress: number; message?: string }> = [];
    const w = client.callTool(
      { name: "wait_for_episode", arguments: { episode_id: id, timeout_seconds: 30 } },
      undefined,
      { onprogress: (p) => heard.push(p) },
    );
    // Several rises while the download moves (its note changes on every chunk, the percent less often).
    await waitFor(() => heard.length >= 3 || undefined, { what: "three progress notifications" });
    ok(await client.callTool({ name: "cancel_episode", arguments: { episode_id: id } }));
    expect(ok(await w)).toMatchObject({ status: "failed", done: true });
    const values = heard.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i], values.join(", ")).toBeGreaterThan(values[i - 1]!);
  });
});
