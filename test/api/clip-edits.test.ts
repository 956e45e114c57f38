// Editing a clip before it renders (issue 19, item 4), over real HTTP on loopback with real renders
// of the short jfk.wav: a retyped caption word shows in the captions read at the old word's times
// and in the new render's caption pixels, and stays through a later restyle; the poster is the
// frame at a word spoken after the hook starts (JPEG and WebP of the output size); a clip of one's own times snaps
// to whole sentences and moves by whole sentences; refusals name the field.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sentencesOf } from "../../daemon/account/clip-words.js";
import { settleStatus, useJfkApiServer, type ApiServer } from "../helpers/api.js";
import { storedPath } from "../helpers/stage-ctx.js";
import type { TestHttpsServer } from "../helpers/https-server.js";

const run = promisify(execFile);

/** A grey frame of `file` at `at` s, cropped to rows [top, top + height) (fractions of the frame), 270 px wide. */
async function band(file: string, at: number, top: number, height: number): Promise<Buffer> {
  const vf = `crop=iw:ih*${height}:0:ih*${top},scale=270:-2,format=gray`;
  return (
    await run(
      "ffmpeg",
      ["-v", "error", "-ss", String(at), "-i", file, "-frames:v", "1", "-vf", vf, "-f", "rawvideo", "-"],
      { encoding: "buffer" },
    )
  ).stdout;
}
const meanDiff = (x: Buffer, y: Buffer) => {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i]! - (y[i] ?? 0));
  return sum / x.length;
};

describe("PATCH /clips/{id}/captions, posters and clips of one's own times", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  const row = async (sql: string, params: unknown[]) => (await s.app.db.query(sql, params)).rows[0];
  const clipRecord = (id: string) =>
    row(`select cut, render, data from clips where id = $1`, [id]) as Promise<{ cut: any; render: any; data: any }>;
  const settle = (key: string, path: string, ok: string) => settleStatus(s, key, path, ok);
  const refused = async (key: string, method: string, path: string, body: unknown, field: string) => {
    const r = await s.call(key, method, path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.field).toBe(field);
    return r.body.error;
  };

  it("retypes a word at its old times, burns it, keeps it through a restyle, " +
    "and posters the hook's first word", async () => {
    // Credit for the one edit past the episode's 5 included exports, charged as a restyle is.
    const a = await s.account({ plan: true, creditCents: 100 });
    const ep = await s.call(a.live, "POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "edits",
      target_seconds: 15,
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(202);
    const episodeId = ep.body.episode_id as string;
    await settle(a.live, `/api/v1/episodes/${episodeId}`, "ready");
    const made = await s.call(a.live, "POST", `/api/v1/episodes/${episodeId}/clips`, {
      clips: [1],
      style: "clean",
      caption_size: "large",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const { job_id: firstJob, clip_id: clipId } = made.body.jobs[0];
    const firstView = await settle(a.live, `/api/v1/jobs/${firstJob}`, "completed");
    const oldFile = storedPath(s.app.storage, (await clipRecord(clipId)).render.key);

    // The poster: JPEG and WebP of the output size, the frame at the hook's first word.
    expect(firstView.poster_url).toMatch(/\/api\/v1\/files\//);
    const jpeg = Buffer.from(await (await fetch(firstView.poster_url)).arrayBuffer());
    const webp = Buffer.from(await (await fetch(firstView.poster_webp_url)).arrayBuffer());
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: "jpeg", width: 1080, height: 1920 });
    expect(await sharp(webp).metadata()).toMatchObject({ format: "webp", width: 1080, height: 1920 });
    const rec = await clipRecord(clipId);
    const words = JSON.parse((await s.app.storage.read(rec.cut.words_key)).toString("utf8")).words as Array<{
      text: string;
      start: number;
      end: number;
    }>;
    // An audio clip's poster is its frame at a word spoken soon after the hook starts (the waveform
    // moves, the caption line is whole), with no second title: the cover still already shows it.
    const posterAt = rec.render.poster.at as number;
    expect(words.some((w) => posterAt >= w.start && posterAt <= w.end)).toBe(true);
    expect(posterAt).toBeLessThan(words[0]!.start + 3);
    expect(rec.render.poster.title).toBeNull();
    // Below the title band the poster is the frame at that time (JPEG noise aside); a frame from
    // the end of the clip is not.
    const lower = async (img: Buffer) =>
      sharp(img).extract({ left: 0, top: 768, width: 1080, height: 1152 }).resize(270).grayscale().raw().toBuffer();
    const frame = async (at: number) =>
      lower(
        await sharp(
          (
            await run(
              "ffmpeg",
              [
                "-v",
                "error",
                "-ss",
                String(at),
                "-i",
                oldFile,
                "-frames:v",
                "1",
                "-f",
                "image2pipe",
                "-c:v",
                "png",
                "-",
              ],
              { encoding: "buffer" },
            )
          ).stdout,
        ).toBuffer(),
      );
    const posterLower = await lower(jpeg);
    expect(meanDiff(posterLower, await frame(rec.render.poster.at))).toBeLessThan(2);
    expect(meanDiff(posterLower, await frame(rec.render.duration - 0.5))).toBeGreaterThan(2);
    // No title band is drawn over it: the top of the poster is the frame's too.
    const top = async (img: Buffer) =>
      sharp(img).extract({ left: 0, top: 0, width: 1080, height: 480 }).resize(270).grayscale().raw().toBuffer();
    const rawFrame = (
      await run(
        "ffmpeg",
        [
          "-v",
          "error",
          "-ss",
          String(rec.render.poster.at),
          "-i",
          oldFile,
          "-frames:v",
          "1",
          "-f",
          "image2pipe",
          "-c:v",
          "png",
          "-",
        ],
        { encoding: "buffer" },
      )
    ).stdout;
    expect(meanDiff(await top(jpeg), await top(rawFrame))).toBeLessThan(2);

    // Retype the first caption's first word.
    const before = (await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`)).body.captions as Array<{
      id: string;
      start_seconds: number;
      end_seconds: number;
      text: string;
    }>;
    const cue = before[0]!;
    const oldWords = cue.text.split(" ");
    const newText = ["Zebra", ...oldWords.slice(1)].join(" ");
    const edit = await s.call(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { cues: [{ id: cue.id, text: newText }] },
      { "idempotency-key": "edit-1" },
    );
    expect(edit.status, JSON.stringify(edit.body)).toBe(202);
    expect(edit.body).toMatchObject({
      clip_id: clipId,
      changes: [`caption ${cue.id}: ${cue.text} → ${newText}`],
      charged_cents: 0,
    });
    const again = await s.call(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { cues: [{ id: cue.id, text: newText }] },
      { "idempotency-key": "edit-1" },
    );
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.job_id).toBe(edit.body.job_id);
    const after = (await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`)).body.captions;
    expect(after[0]).toMatchObject({
      id: cue.id,
      text: newText,
      start_seconds: cue.start_seconds,
      end_seconds: cue.end_seconds,
    });
    expect(after.slice(1)).toEqual(before.slice(1));
    await settle(a.live, `/api/v1/jobs/${edit.body.job_id}`, "completed");
    const newFile = storedPath(s.app.storage, (await clipRecord(clipId)).render.key);
    expect(newFile).not.toBe(oldFile);

    // The caption band differs where the new word is on screen; the top of the frame does not.
    const at = cue.start_seconds + 0.1;
    const caption = meanDiff(await band(oldFile, at, 0.55, 0.3), await band(newFile, at, 0.55, 0.3));
    expect(caption).toBeGreaterThan(1);
    expect(meanDiff(await band(oldFile, at, 0, 0.2), await band(newFile, at, 0, 0.2))).toBeLessThan(caption / 4);

    // A later restyle keeps the edited words.
    const restyle = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, { caption_size: "medium" });
    expect(restyle.status, JSON.stringify(restyle.body)).toBe(202);
    await settle(a.live, `/api/v1/jobs/${restyle.body.job_id}`, "completed");
    expect((await s.app.storage.read((await clipRecord(clipId)).render.ass_key)).toString("utf8")).toContain("Zebra");

    // Refusals name the field.
    await refused(a.live, "PATCH", `/api/v1/clips/${clipId}/captions`, {}, "body");
    await refused(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { cues: [{ id: "99", text: "x" }] },
      "cues.0.id",
    );
    await refused(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { cues: [{ id: "1", text: "   " }] },
      "cues.0.text",
    );
    await refused(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { start_sentence_delta: 20 },
      "start_sentence_delta",
    );
    await refused(
      a.live,
      "PATCH",
      `/api/v1/clips/${clipId}/captions`,
      { end_sentence_delta: 2.5 },
      "end_sentence_delta",
    );

    // A clip of one's own times snaps outward to whole sentences of the transcript.
    const state = (await row(`select state from episodes where id = $1`, [episodeId])).state;
    const transcript = JSON.parse((await s.app.storage.read(state.transcript.key)).toString("utf8"));
    const sentences = sentencesOf(transcript.words);
    // jfk.wav, as pocketsphinx hears it, is three pause-delimited sentences: 0.05-2.3, 3.29-4.3, 5.35-10.46 s.
    expect(sentences).toHaveLength(3);
    const [s0, s1, s2] = sentences as [(typeof sentences)[0], (typeof sentences)[0], (typeof sentences)[0]];
    const clipsPath = `/api/v1/episodes/${episodeId}/clips`;
    await refused(a.live, "POST", clipsPath, { clips: [{ start: 4, end: 3 }] }, "clips.0.end");
    // 1 s: under 2 s
    await refused(a.live, "POST", clipsPath, { clips: [{ start: s1.start + 0.1, end: s1.end - 0.1 }] }, "clips.0.end");
    await refused(a.live, "POST", clipsPath, { clips: [1, { start: 2.4, end: 3.2 }] }, "clips.1.start"); // only a pause
    const own = await s.call(a.live, "POST", clipsPath, { clips: [{ start: s1.start + 0.2, end: s2.start + 0.5 }] });
    expect(own.status, JSON.stringify(own.body)).toBe(202);
    const ownId = own.body.jobs[0].clip_id as string;
    const ownClip = (await clipRecord(ownId)).data;
    expect(ownClip).toMatchObject({
      start: s1.start,
      end: s2.end,
      pieces: [{ start: s1.start, end: s2.end }],
      hook: s1.text,
    });
    expect(ownClip.ref).toMatch(/^u[0-9a-f]{5}$/);
    await settle(a.live, `/api/v1/jobs/${own.body.jobs[0].job_id}`, "completed");

    // Whole sentences on and off at the start; the end cannot pass the episode's last sentence.
    const ownEdits = `/api/v1/clips/${ownId}/captions`;
    await refused(a.live, "PATCH", ownEdits, { end_sentence_delta: 1 }, "end_sentence_delta");
    const longer = await s.call(a.live, "PATCH", ownEdits, { start_sentence_delta: 1 });
    expect(longer.status, JSON.stringify(longer.body)).toBe(202);
    expect(longer.body).toMatchObject({ start_seconds: s0.start, end_seconds: s2.end });
    expect((await clipRecord(ownId)).data).toMatchObject({ start: s0.start, end: s2.end, hook: s0.text });
    const shorter = await s.call(a.live, "PATCH", ownEdits, { start_sentence_delta: -2 });
    expect(shorter.status, JSON.stringify(shorter.body)).toBe(202);
    expect(shorter.body).toMatchObject({ start_seconds: s2.start, end_seconds: s2.end, charged_cents: 25 });
    const left = (await s.call(a.live, "GET", `/api/v1/clips/${ownId}/captions`)).body.captions
      .map((c: { text: string }) => c.text)
      .join(" ");
    expect(left).toBe(s2.text);
    const moved = await settle(a.live, `/api/v1/jobs/${shorter.body.job_id}`, "completed");
    expect(moved.kind).toBe("cut");
    expect((await clipRecord(ownId)).render.duration).toBeCloseTo(s2.end - s2.start, 0);
  }, 900_000);

  it("answers a test key's caption edit from the sample captions, starting nothing", async () => {
    const a = await s.account();
    const ep = await s.call(a.test, "GET", "/api/v1/episodes");
    const clip = ep.body.episodes[0].clips.find((c: any) => c.cut_status === "cut");
    const captions = (await s.call(a.test, "GET", `/api/v1/clips/${clip.clip_id}/captions`)).body.captions;
    const r = await s.call(a.test, "PATCH", `/api/v1/clips/${clip.clip_id}/captions`, {
      cues: [{ id: captions[0].id, text: "Retyped words" }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({
      changes: [`caption ${captions[0].id}: ${captions[0].text} → Retyped words`],
      charged_cents: 0,
      livemode: false,
    });
    await refused(
      a.test,
      "PATCH",
      `/api/v1/clips/${clip.clip_id}/captions`,
      { cues: [{ id: "0", text: "x" }] },
      "cues.0.id",
    );
    const own = await s.call(a.test, "POST", `/api/v1/episodes/${ep.body.episodes[0].episode_id}/clips`, {
      clips: [1, { start: 1, end: 9 }],
    });
    expect(own.status, JSON.stringify(own.body)).toBe(202);
    expect(own.body.not_started).toMatchObject([{ clip: "1-9", reason: "test_mode" }]);
  });
});
