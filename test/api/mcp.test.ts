// The MCP tool server's live flow on real media, with the official SDK client against a real server
// on loopback: every tool called with a live key (get_episode sees what create_episode made), one
// episode for one idempotency_key, the work recorded with origin "chat", a signed episode.ready
// webhook for an episode made through a tool, and the finished work read back as resources.
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { isToolOperation, toolName } from "../../facade/mcp/tools.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot } from "../helpers/cli.js";
import { serveFile } from "../helpers/https-server.js";
import { expectTextHoldsIds, mcpClient, ok, refusal } from "../helpers/mcp.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

describe("MCP tool server: live work", () => {
  let s: ApiServer;
  let rx: Receiver;
  beforeAll(async () => {
    // One https server on loopback both serves the recording and receives the webhooks.
    rx = await startReceiver();
    rx.server.route("/jfk.wav", serveFile(TEST_MEDIA.jfkWav, "audio/wav"));
    // Headers and a first chunk, then nothing: an import that never finishes fetching.
    rx.server.route("/endless.wav", (_req, res) => {
      res.writeHead(200, { "content-type": "audio/wav", "content-length": String(10_000_000) });
      res.write(Buffer.alloc(4096));
    });
    rx.server.route(
      "/font.ttf",
      serveFile(path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf"), "font/ttf"),
    );
    const art = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#22cc88" } })
      .png()
      .toBuffer();
    rx.server.route("/art.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(art));
    s = await openApiServer("pglite", { network: { allow_loopback: true, extra_ca: rx.server.caPath } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await rx?.close();
  });

  const called = new Set<string>();
  const tool = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    called.add(name);
    const r = await client.callTool({ name, arguments: args });
    // What a model reads is the text: every id and link of the answer is in it, whatever its length.
    expectTextHoldsIds(r);
    return ok(r);
  };
  const idArg: Record<string, string> = {
    get_episode: "episode_id",
    get_job: "job_id",
    get_transcript: "transcript_id",
  };
  /** Polls a get_ tool until `done` holds; a failed state ends the wait and fails the test at once. */
  const until = async (client: Client, name: string, id: string, done: (x: any) => boolean) => {
    const x = await waitFor(
      async () => {
        const x = await tool(client, name, { [idArg[name]!]: id });
        return x.status === "failed" || done(x) ? x : undefined;
      },
      { what: `${name} ${id}`, timeoutMs: 240_000, intervalMs: 300 },
    );
    expect(x.status, `${name} ${id}: ${JSON.stringify(x)}`).not.toBe("failed");
    return x;
  };
  const origins = async (ref: string) =>
    (await s.app.db.query(`select origin from runs where origin_ref = $1`, [ref])).rows.map((r: any) => r.origin);

  it("runs every tool with a live key, records the work as chat's, and signs its webhooks as usual", async () => {
    // A plan account: the chat's episode is still paid from credit (the plan's episodes are the API's).
    const acc = await s.account({ plan: true, creditCents: 5000 });
    const client = await mcpClient(s.base, acc.live);
    expect((await tool(client, "get_me")).key.mode).toBe("live");

    // Webhooks first, so the episode's events reach the receiver.
    const hook = await tool(client, "create_webhook", {
      url: rx.path("/mcp-hook"),
      events: ["episode.ready", "clip.ready"],
    });
    expect(hook).toMatchObject({ id: expect.any(String), secret: expect.stringMatching(/^whsec_/) });
    rx.secret("/mcp-hook", hook.secret);
    expect((await tool(client, "test_webhook", { webhook_id: hook.id, event: "clip.ready" })).delivered).toBe(true);
    expect(
      (
        await tool(client, "update_webhook", {
          webhook_id: hook.id,
          events: ["episode.ready", "clip.ready", "transcript.completed"],
        })
      ).events,
    ).toHaveLength(3);
    const rotated = await tool(client, "rotate_webhook_secret", { webhook_id: hook.id });
    rx.secret("/mcp-hook", rotated.secret);
    expect((await tool(client, "list_webhooks")).webhooks.map((w: any) => w.id)).toEqual([hook.id]);

    // The same idempotency_key twice: one episode, the first answer replayed.
    const args = {
      source_url: rx.server.url("/jfk.wav"),
      name: "JFK from a chat",
      target_seconds: 15,
      idempotency_key: "mcp-episode-1",
    };
    const first = await client.callTool({ name: "create_episode", arguments: args });
    called.add("create_episode");
    const again = await client.callTool({ name: "create_episode", arguments: args });
    expect(ok(again)).toEqual(ok(first));
    expect(again._meta).toMatchObject({ "clipd/idempotent_replayed": true });
    const id = ok(first).episode_id;
    expect(
      Number(
        (await s.app.db.query(`select count(*)::int as n from episodes where account_id = $1`, [acc.accountId])).rows[0]
          .n,
      ),
    ).toBe(1);
    expect(await origins(`episode:${id}`)).toEqual(["chat"]);

    const ready = await until(client, "get_episode", id, (e) => e.status === "ready");
    expect(ready).toMatchObject({ episode_id: id, name: "JFK from a chat", livemode: true });
    expect(ready.clips.length).toBeGreaterThanOrEqual(1);
    expect(await origins(`search:${id}`)).toEqual(["chat"]);
    const charges = (
      await s.app.db.query(`select kind, cents from ledger where account_id = $1 and ref = $2`, [acc.accountId, id])
    ).rows.map((r: any) => ({ kind: r.kind, cents: Number(r.cents) }));
    expect(charges).toEqual([{ kind: "episode", cents: expect.any(Number) }]);
    expect(charges[0]!.cents).toBeLessThan(0);
    expect((await tool(client, "list_episodes")).episodes.map((e: any) => e.episode_id)).toEqual([id]);

    const delivered = await waitFor(
      () => rx.receipts.find((r) => r.path === "/mcp-hook" && JSON.parse(r.body).type === "episode.ready"),
      { what: "episode.ready for the chat's episode", timeoutMs: 60_000 },
    );
    expect(delivered.verified).toBe(true);
    expect(JSON.parse(delivered.body)).toMatchObject({
      type: "episode.ready",
      livemode: true,
      data: { episode_id: id, status: "ready" },
    });

    // Its clips and the styles as resources, listed and read.
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["clipd://styles", `clipd://episodes/${id}/clips`]),
    );
    const clipsRes = JSON.parse(
      String((await client.readResource({ uri: `clipd://episodes/${id}/clips` })).contents[0]!.text),
    );
    expect(clipsRes.clips).toEqual(ready.clips);
    const style = (await tool(client, "list_styles")).styles[0].id;

    const cut = await tool(client, "export_clips", { episode_id: id, clips: [1], style });
    // wait_for_job with a progressToken: notifications/progress arrive while the clip renders.
    const heard: Array<{ progress: number; message?: string }> = [];
    let job: any;
    for (let call = 0; call < 5 && !job?.done; call++) {
      called.add("wait_for_job");
      const r = await client.callTool({ name: "wait_for_job", arguments: { job_id: cut.jobs[0].job_id } }, undefined, {
        onprogress: (p) => heard.push(p),
        timeout: 90_000,
      });
      expectTextHoldsIds(r);
      job = ok(r);
    }
    expect(job).toMatchObject({ status: "completed", done: true });
    expect(heard.length, "progress notifications during the render").toBeGreaterThan(0);
    expect(heard.every((p) => typeof p.message === "string" && p.message.startsWith("job "))).toBe(true);
    // The same clip with the same look again: its job, nothing rendered or charged.
    const exportedAgain = await tool(client, "export_clips", { episode_id: id, clips: [1], style });
    expect(exportedAgain.jobs[0]).toMatchObject({ job_id: job.job_id, existing: true, charged_cents: 0 });
    expect(exportedAgain.message).toContain("wait_for_job");
    expect(await origins(`job:${job.job_id}`)).toEqual(["chat"]);
    expect(job.download_url).toMatch(/^http/);
    const clipId = job.clip_id;
    const caps = await tool(client, "clip_captions", { clip_id: clipId, limit: 5 });
    expect(caps.captions.length).toBeGreaterThan(0);
    const restyled = await tool(client, "restyle_clip", { clip_id: clipId, caption_position: "top" });
    await until(client, "get_job", restyled.job_id, (j) => j.status === "completed");
    // A caption retyped from a chat: a new render, and the captions read shows the words.
    const edited = await tool(client, "edit_clip_captions", {
      clip_id: clipId,
      cues: [{ id: caps.captions[0].id, text: "Ask now what" }],
    });
    await until(client, "get_job", edited.job_id, (j) => j.status === "completed");
    expect((await tool(client, "clip_captions", { clip_id: clipId, limit: 1 })).captions[0].text).toBe("Ask now what");
    const search = await tool(client, "search_episode", { episode_id: id, about: "the country" });
    expect(search.status).toMatch(/searching|done/);
    let searched: any;
    for (let call = 0; call < 5 && !searched?.done; call++)
      searched = await tool(client, "wait_for_episode", { episode_id: id });
    expect(searched).toMatchObject({ status: "ready", done: true });

    // A brand kit made and filled by links (a model sends no bytes), and the episode's own cover.
    const kit = (await tool(client, "create_brand_kit", { name: "Chat kit", colours: { accent: "#22CC88" } }))
      .brand_kit_id;
    expect(
      (await tool(client, "upload_brand_kit_font", { brand_kit_id: kit, url: rx.server.url("/font.ttf") })).font.family,
    ).toBe("DejaVu Sans");
    expect(
      (await tool(client, "upload_brand_kit_logo", { brand_kit_id: kit, url: rx.server.url("/art.png") })).logo
        .uploaded,
    ).toBe(true);
    expect(
      (await tool(client, "upload_brand_kit_cover", { brand_kit_id: kit, url: rx.server.url("/art.png") })).cover
        .uploaded,
    ).toBe(true);
    expect((await tool(client, "update_brand_kit", { brand_kit_id: kit, show_name: "The Chat Show" })).show_name).toBe(
      "The Chat Show",
    );
    expect((await tool(client, "get_brand_kit", { brand_kit_id: kit })).colours.accent).toBe("#22CC88");
    expect((await tool(client, "list_brand_kits")).brand_kits.map((k: any) => k.brand_kit_id)).toEqual([kit]);
    expect(
      (await tool(client, "set_episode_cover", { episode_id: id, url: rx.server.url("/art.png") })).cover,
    ).toMatchObject({
      set: true,
      width: 64,
      source: "url",
    });
    expect((await tool(client, "delete_episode_cover", { episode_id: id })).cover.set).toBe(false);
    expect((await tool(client, "delete_brand_kit", { brand_kit_id: kit })).deleted).toBe(true);

    // An upload from a chat: the answer says where to PUT; the file arrives outside the chat.
    const up = await tool(client, "create_episode", { file_name: "jfk.wav" });
    expect(up.upload).toMatchObject({ method: "PUT", url: expect.stringMatching(/^http/) });
    expect(
      refusal(await client.callTool({ name: "episode_uploaded", arguments: { episode_id: up.episode_id } })).code,
    ).toBe("upload_missing");
    const put = await fetch(up.upload.url, {
      method: "PUT",
      headers: up.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBeLessThan(300);
    expect((await tool(client, "episode_uploaded", { episode_id: up.episode_id })).status).toMatch(
      /importing|transcribing/,
    );

    // A transcript, then its file as a resource.
    const tr = await tool(client, "create_transcript", { url: rx.server.url("/jfk.wav") });
    const done = await until(client, "get_transcript", tr.id, (t) => t.status === "completed");
    expect(await origins(tr.id)).toEqual(["chat"]);
    const vtt = await client.readResource({ uri: `clipd://transcripts/${tr.id}.vtt` });
    expect(vtt.contents[0]).toMatchObject({ mimeType: "text/vtt", text: expect.stringMatching(/^WEBVTT[\s\S]*-->/) });
    const txt = await client.readResource({ uri: `clipd://transcripts/${tr.id}.txt` });
    expect(String(txt.contents[0]!.text).trim()).toBe(done.text.trim());

    // The uploaded episode deleted while it is being made: its runs are cancelled, its rows and files gone.
    const uploadKey = (await s.app.db.query(`select upload->>'key' as k from episodes where id = $1`, [up.episode_id]))
      .rows[0].k;
    expect(await s.app.storage.exists(uploadKey)).toBe(true);
    // Cancelled while it is being made (or, on a fast machine, refused: ready already).
    const stop = await client.callTool({ name: "cancel_episode", arguments: { episode_id: up.episode_id } });
    called.add("cancel_episode");
    if (stop.isError) expect(refusal(stop).code).toBe("episode_not_cancellable");
    else expect(ok(stop).failure).toMatchObject({ code: "cancelled" });
    expect((await tool(client, "delete_episode", { episode_id: up.episode_id })).deleted).toBe(true);
    expect(await s.app.storage.exists(uploadKey)).toBe(false);
    expect(refusal(await client.callTool({ name: "get_episode", arguments: { episode_id: up.episode_id } })).code).toBe(
      "not_found",
    );

    expect((await tool(client, "delete_webhook", { webhook_id: hook.id })).deleted).toBe(true);
    expect([...called].sort()).toEqual(OPERATIONS.filter(isToolOperation).map(toolName).sort());
    await client.close();
  }, 900_000);

  it("cancels an episode while it imports (nothing charged) and waits for it with progress", async () => {
    const acc = await s.account({ creditCents: 5000 });
    const client = await mcpClient(s.base, acc.live);
    // A source that starts and never ends: the import stays in its fetch until cancelled.
    const made = ok(
      await client.callTool({
        name: "create_episode",
        arguments: { source_url: rx.server.url("/endless.wav"), name: "never ends" },
      }),
    );
    await waitFor(
      async () =>
        (
          await s.app.db.query(`select 1 from runs where origin_ref = $1 and state = 'running'`, [
            `episode:${made.episode_id}`,
          ])
        ).rows[0],
      {
        what: "the import running",
        timeoutMs: 60_000,
      },
    );
    const heard: unknown[] = [];
    const short = ok(
      await client.callTool(
        { name: "wait_for_episode", arguments: { episode_id: made.episode_id, timeout_seconds: 1 } },
        undefined,
        { onprogress: (p) => heard.push(p) },
      ),
    );
    expect(short).toMatchObject({
      status: "importing",
      done: false,
      wait_message: expect.stringContaining("wait_for_episode"),
    });
    expect(heard.length).toBeGreaterThan(0);
    const cancelled = ok(await client.callTool({ name: "cancel_episode", arguments: { episode_id: made.episode_id } }));
    expect(cancelled).toMatchObject({ status: "failed", failure: { code: "cancelled" }, charged_cents: 0 });
    expect(cancelled.message).toMatch(/nothing was charged/);
    const ledger = await s.app.db.query(`select count(*)::int as n from ledger where ref = $1`, [made.episode_id]);
    expect(ledger.rows[0].n).toBe(0);
    expect(
      (await s.app.db.query(`select state from runs where origin_ref = $1`, [`episode:${made.episode_id}`])).rows.map(
        (r: any) => r.state,
      ),
    ).toEqual(["cancelled"]);
    // A second cancel changes nothing more.
    expect(
      refusal(await client.callTool({ name: "cancel_episode", arguments: { episode_id: made.episode_id } })).code,
    ).toBe("episode_not_cancellable");
    await client.close();
  });
});
