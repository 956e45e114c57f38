// Clean captions through the account API, over real HTTP with a real import and render of jfk.wav:
// censor, emphasis and emoji are look fields of an export and a restyle; while a clip's look
// censors, its captions read shows the listed words masked at the same times, and the burned ASS
// has the same masks. The server's word list (render.censor_words) is the test's own, holding a
// word the recogniser heard.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { until } from "../helpers/cli.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";

type Caption = { id: string; start_seconds: number; end_seconds: number; text: string };

describe("censor, emphasis and emoji on clips", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  const listFile = path.join(mkdtempSync(path.join(os.tmpdir(), "clipd-words-")), "words.txt");
  beforeAll(async () => {
    media = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    s = await openApiServer("pglite", {
      network: { allow_loopback: true, extra_ca: media.caPath },
      // pocketsphinx hears the word the test lists ("country") at 0.47, under the 0.5 the censor
      // wants by default: this test is about how a mask is drawn and read, so every listed word is.
      render: { censor_words: listFile, censor_low_confidence: true },
    });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await media?.close();
  });

  const settle = async (key: string, p: string, ok: string) => {
    const body = await until(
      async () => {
        const r = await s.call(key, "GET", p);
        return [ok, "failed"].includes(r.body.status) ? r.body : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 250, what: p },
    );
    expect(body.status, JSON.stringify(body.error ?? body.failure)).toBe(ok);
    return body;
  };

  it("masks the listed word in the captions read at the same times and in the " +
    "burned captions; restyles name the fields", async () => {
    const a = await s.account({ plan: true });
    const ep = await s.call(a.live, "POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "clean",
      target_seconds: 15,
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(202);
    const episodeId = ep.body.episode_id as string;
    const ready = await settle(a.live, `/api/v1/episodes/${episodeId}`, "ready");
    const clipId = ready.clips[0].clip_id as string;

    // The clip's captions before any look: the list gets the longest word the recogniser heard.
    const plain = (await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`)).body.captions as Caption[];
    const word = plain
      .flatMap((c) => c.text.split(" "))
      .map((w) => w.replace(/[^A-Za-z]/g, ""))
      .sort((x, y) => y.length - x.length)[0]!;
    expect(word.length).toBeGreaterThanOrEqual(4);
    writeFileSync(listFile, `# the test's list\n${word.toLowerCase()}\n`);
    const masked = word[0] + "*".repeat(word.length - 1);

    const made = await s.call(a.live, "POST", `/api/v1/episodes/${episodeId}/clips`, {
      clips: [1],
      style: "clean",
      censor: "mask",
      emphasis: false,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    // The look is the clip's as soon as the job is made: the read masks while it renders.
    const read = (await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`)).body.captions as Caption[];
    expect(read.map((c) => [c.id, c.start_seconds, c.end_seconds])).toEqual(
      plain.map((c) => [c.id, c.start_seconds, c.end_seconds]),
    );
    const wordRe = new RegExp(`\\b${word}\\b`, "gi");
    expect(read.map((c) => c.text)).toEqual(
      plain.map((c) => c.text.replace(wordRe, (w) => w[0] + "*".repeat(w.length - 1))),
    );
    expect(read.some((c) => c.text.includes(masked))).toBe(true);

    await settle(a.live, `/api/v1/jobs/${made.body.jobs[0].job_id}`, "completed");
    const rec = (await s.app.db.query(`select render from clips where id = $1`, [clipId])).rows[0].render;
    expect(rec).toMatchObject({ censor: "mask", emphasis: false, emoji: false });
    const ass = (await s.app.storage.read(rec.ass_key)).toString("utf8");
    const events = ass
      .split("\n")
      .filter((l) => l.startsWith("Dialogue:"))
      .join("\n");
    expect(events).toContain(masked);
    expect(events).not.toMatch(wordRe);

    // A restyle to off names the change, and the captions read shows the word again.
    const off = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, {
      censor: "off",
      emphasis: true,
      emoji: true,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(202);
    expect(off.body.changes).toEqual(["censor: mask → off", "emphasis: false → true", "emoji: false → true"]);
    expect((await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`)).body.captions).toEqual(plain);
    await settle(a.live, `/api/v1/jobs/${off.body.job_id}`, "completed");

    // A value outside the list is refused naming the field.
    const bad = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, { censor: "beep" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("censor");
  }, 600_000);
});
