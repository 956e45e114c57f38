// Each write tool's annotations against what it does, with the official SDK client on real media:
// every write tool is called twice with the same arguments and the account's state (rows of each
// kind, runs, charges, credit, webhook secrets, deliveries) is read after each call. A tool that says
// idempotentHint true changes nothing on its second call; one that says false does new work on it
// (the few whose repeat is harmless only for some arguments are named with why). A tool that says
// destructiveHint true replaced or removed something the account had.
import path from "node:path";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { WRITE_EFFECTS } from "../../facade/mcp/annotations.js";
import { isToolOperation, toolName } from "../../facade/mcp/tools.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot } from "../helpers/cli.js";
import { serveFile } from "../helpers/https-server.js";
import { mcpClient, ok } from "../helpers/mcp.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

/** Tools whose repeat is harmless for the arguments called here but not for all (their hint says false). */
const REPEAT_HARMLESS_HERE: Record<string, string> = {
  edit_clip_captions: "retyping a caption to the same words changes nothing; start/end_sentence_delta move again",
};

describe("MCP annotations: each write tool called twice", () => {
  let s: ApiServer;
  let rx: Receiver;
  let client: Client;
  let accountId: string;
  beforeAll(async () => {
    rx = await startReceiver();
    rx.server.route("/jfk.wav", serveFile(TEST_MEDIA.jfkWav, "audio/wav"));
    rx.server.route(
      "/font.ttf",
      serveFile(path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf"), "font/ttf"),
    );
    const art = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#2288cc" } })
      .png()
      .toBuffer();
    rx.server.route("/art.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(art));
    rx.server.route("/endless.wav", (_req, res) => {
      res.writeHead(200, { "content-type": "audio/wav", "content-length": String(10_000_000) });
      res.write(Buffer.alloc(4096));
    });
    s = await openApiServer("pglite", { network: { allow_loopback: true, extra_ca: rx.server.caPath } });
    const acc = await s.account({ creditCents: 20_000 });
    accountId = acc.accountId;
    client = await mcpClient(s.base, acc.live);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await s?.close();
    await rx?.close();
  });

  /** What a call may change, read from the database. */
  async function state() {
    const count = async (sql: string) => Number((await s.app.db.query(sql, [accountId])).rows[0].n);
    return {
      episodes: await count(`select count(*)::int as n from episodes where account_id = $1`),
      clips: await count(`select count(*)::int as n from clips where account_id = $1`),
      jobs: await count(`select count(*)::int as n from jobs where account_id = $1`),
      runs: await count(`select count(*)::int as n from runs where input->>'account_id' = $1`),
      ledger: await count(`select count(*)::int as n from ledger where account_id = $1`),
      kits: await count(`select count(*)::int as n from brand_kits where account_id = $1`),
      transcripts: await count(`select count(*)::int as n from transcripts where account_id = $1`),
      webhooks: await count(`select count(*)::int as n from webhooks where account_id = $1`),
      deliveries: await count(
        `select count(*)::int as n from deliveries d join webhooks w on w.id = d.webhook_id where w.account_id = $1`,
      ),
      secrets: (
        await s.app.db.query(`select secrets::text as t from webhooks where account_id = $1 order by id`, [accountId])
      ).rows
        .map((r: { t: string }) => r.t)
        .join("|"),
    };
  }
  type State = Awaited<ReturnType<typeof state>>;
  const changed = (a: State, b: State) =>
    (Object.keys(a) as Array<keyof State>).filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k]} → ${b[k]}`);

  const tools = new Map<string, { idempotentHint?: boolean; destructiveHint?: boolean }>();
  const checked = new Set<string>();

  /** Calls `name` twice; checks the second call against idempotentHint; answers the first call's answer. */
  async function twice(name: string, args: Record<string, unknown>, between?: (first: any) => Promise<void>) {
    const before = await state();
    const first = await client.callTool({ name, arguments: args });
    if (between) await between(first.structuredContent);
    const middle = await state();
    await client.callTool({ name, arguments: args });
    const after = await state();
    const second = changed(middle, after);
    const hint = tools.get(name)!;
    if (hint.idempotentHint) expect(second, `${name} says idempotent; its repeat changed`).toEqual([]);
    else if (!REPEAT_HARMLESS_HERE[name])
      expect(second.length, `${name} says not idempotent; its repeat changed nothing`).toBeGreaterThan(0);
    checked.add(name);
    return { first: first.isError ? undefined : first.structuredContent, firstChanged: changed(before, middle) };
  }

  const waitJob = async (jobId: string) => {
    for (let i = 0; i < 8; i++) {
      const j = ok(await client.callTool({ name: "wait_for_job", arguments: { job_id: jobId } }));
      if (j.done) return expect(j.status).toBe("completed");
    }
    throw new Error(`job ${jobId} did not end`);
  };
  const waitEpisode = async (episodeId: string) => {
    for (let i = 0; i < 8; i++) {
      const e = ok(await client.callTool({ name: "wait_for_episode", arguments: { episode_id: episodeId } }));
      if (e.done) return expect(e.status).toBe("ready");
    }
    throw new Error(`episode ${episodeId} did not end`);
  };

  it("keeps every write tool's hints true to what a second call does", async () => {
    for (const t of (await client.listTools()).tools) tools.set(t.name, t.annotations ?? {});
    const writes = OPERATIONS.filter((op) => isToolOperation(op) && op.method !== "GET").map(toolName);
    expect(Object.keys(WRITE_EFFECTS).sort()).toEqual([...writes].sort());

    // Episodes: a new one each call; an upload said done twice starts one import.
    await twice("create_episode", { file_name: "a.mp3" });
    const up = ok(await client.callTool({ name: "create_episode", arguments: { file_name: "jfk.wav" } }));
    await fetch(up.upload.url, { method: "PUT", headers: up.upload.headers, body: await readFile(TEST_MEDIA.jfkWav) });
    await twice("episode_uploaded", { episode_id: up.episode_id });
    const id = up.episode_id as string;
    await waitEpisode(id);

    // A clip exported twice with one look: one job, one charge; restyled twice: one render.
    const exported = await twice("export_clips", { episode_id: id, clips: [1] }, async (r) =>
      waitJob(r.jobs[0].job_id),
    );
    const clipId = exported.first.jobs[0].clip_id as string;
    await twice("restyle_clip", { clip_id: clipId, caption_position: "top" }, async (r) => waitJob(r.job_id));
    const caps = ok(await client.callTool({ name: "clip_captions", arguments: { clip_id: clipId, limit: 1 } }));
    await twice(
      "edit_clip_captions",
      { clip_id: clipId, cues: [{ id: caps.captions[0].id, text: "We choose" }] },
      (r) => waitJob(r.job_id),
    );
    // Searching again without a brief searches again (once the first search has ended).
    await twice("search_episode", { episode_id: id }, async () => waitEpisode(id));
    await waitEpisode(id);
    const cover = await twice("set_episode_cover", { episode_id: id, url: rx.server.url("/art.png") });
    expect(cover.first.cover.set).toBe(true);
    await twice("delete_episode_cover", { episode_id: id });

    // Brand kits.
    await twice("create_brand_kit", { name: "Twice" });
    const kit = ok(await client.callTool({ name: "create_brand_kit", arguments: { name: "Kit" } })).brand_kit_id;
    const updated = await twice("update_brand_kit", { brand_kit_id: kit, show_name: "Replaced" });
    expect(updated.first.show_name).toBe("Replaced");
    await twice("upload_brand_kit_font", { brand_kit_id: kit, url: rx.server.url("/font.ttf") });
    await twice("upload_brand_kit_logo", { brand_kit_id: kit, url: rx.server.url("/art.png") });
    await twice("upload_brand_kit_cover", { brand_kit_id: kit, url: rx.server.url("/art.png") });
    const gone = await twice("delete_brand_kit", { brand_kit_id: kit });
    expect(gone.firstChanged).toEqual(expect.arrayContaining([expect.stringMatching(/^kits: /)]));

    // Transcripts and webhooks.
    await twice("create_transcript", { url: rx.server.url("/jfk.wav") });
    await twice("create_webhook", { url: rx.path("/twice"), events: ["episode.ready"] });
    const hook = ok(
      await client.callTool({ name: "create_webhook", arguments: { url: rx.path("/hook"), events: ["clip.ready"] } }),
    );
    await twice("update_webhook", { webhook_id: hook.id, events: ["clip.ready", "episode.ready"] });
    await twice("test_webhook", { webhook_id: hook.id, event: "clip.ready" });
    const rotated = await twice("rotate_webhook_secret", { webhook_id: hook.id });
    expect(rotated.firstChanged).toEqual(expect.arrayContaining([expect.stringMatching(/^secrets: /)]));
    await twice("delete_webhook", { webhook_id: hook.id });

    // An episode cancelled twice (its import never ends by itself), then deleted twice.
    const endless = ok(
      await client.callTool({ name: "create_episode", arguments: { source_url: rx.server.url("/endless.wav") } }),
    );
    const stopped = await twice("cancel_episode", { episode_id: endless.episode_id });
    expect(stopped.first).toMatchObject({ failure: { code: "cancelled" }, charged_cents: 0 });
    const deleted = await twice("delete_episode", { episode_id: id });
    expect(deleted.firstChanged).toEqual(expect.arrayContaining([expect.stringMatching(/^episodes: /)]));

    expect([...checked].sort()).toEqual([...writes].sort());
    // What said destructive replaced or removed something the account had (shown by the first calls above).
    for (const name of ["update_brand_kit", "delete_brand_kit", "rotate_webhook_secret", "delete_episode"])
      expect(tools.get(name)!.destructiveHint, name).toBe(true);
    for (const name of ["create_episode", "create_brand_kit", "create_webhook", "create_transcript", "export_clips"])
      expect(tools.get(name)!.destructiveHint, name).toBe(false);
  }, 900_000);
});
