// The studio's web-only calls over real HTTP on loopback, on real episodes of jfk.wav made through
// /web (one linked audio episode, one uploaded video of it): the source link answers a Range with
// 206; the transcript lines filter by q; the waveform, a poster and a style preview are real PNG or
// JPEG of their stated sizes, drawn once (a second call, and two racing first calls, draw nothing
// more) and 304 on If-None-Match; another account gets 404 and an unknown style names the styles.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { runAdmin } from "../../daemon/account/admin.js";
import { StudioService } from "../../daemon/studio/service.js";
import { useJfkApiServer, type ApiServer } from "../helpers/api.js";
import type { TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { WebClient } from "../helpers/web.js";

const run = promisify(execFile);
/** Where the drawn images are written for a person to look at. */
const LOOK = process.env.CLIPD_TEST_LOOK_DIR;

describe("the studio's web-only calls", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  const studio = () => s.app.container.resolve(StudioService);
  const drawsOf = (suffix: string) =>
    [...studio().images.draws].filter(([k]) => k.endsWith(suffix)).reduce((n, [, c]) => n + c, 0);

  async function funded(): Promise<WebClient> {
    const c = new WebClient(s.base);
    await c.signUp();
    const me = await c.call("GET", "/api/v1/account");
    await runAdmin(s.app.accounts, "credit.add", { account: me.body.account.id, cents: 100_000 });
    return c;
  }
  async function ready(c: WebClient, id: string) {
    const ep = await waitFor(
      async () => {
        const r = await c.call("GET", `/api/v1/episodes/${id}`);
        return ["ready", "failed"].includes(r.body.status) ? r.body : undefined;
      },
      { what: `episode ${id} ready`, timeoutMs: 240_000, intervalMs: 250 },
    );
    expect(ep.status, JSON.stringify(ep.failure)).toBe("ready");
    expect(ep.clips.length).toBeGreaterThan(0);
    return ep;
  }
  /** An episode of an uploaded video: a test pattern with jfk.wav as its sound. */
  async function videoEpisode(c: WebClient): Promise<string> {
    const file = path.join(s.dataDir, "talk.mp4");
    await run("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=640x360:rate=25",
      "-i",
      TEST_MEDIA.jfkWav,
      "-shortest",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      file,
    ]);
    const made = await c.call("POST", "/api/v1/episodes", { file_name: "talk.mp4", target_seconds: 15 });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const put = await fetch(made.body.upload.url, {
      method: "PUT",
      headers: made.body.upload.headers,
      body: await readFile(file),
    });
    expect(put.status).toBe(200);
    expect((await c.call("POST", `/api/v1/episodes/${made.body.episode_id}/uploaded`, {})).status).toBe(200);
    return made.body.episode_id;
  }
  async function image(c: WebClient, url: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${s.base}/web${url}`, {
      headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "), ...headers },
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { res, bytes, meta: res.status === 200 ? await sharp(bytes).metadata() : undefined };
  }
  const look = async (name: string, bytes: Buffer) => LOOK && writeFile(path.join(LOOK, name), bytes);

  it("serves an audio episode's source, lines, waveform, card poster and style previews, drawn once each", async () => {
    const a = await funded();
    const made = await a.call("POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "JFK",
      target_seconds: 15,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const id = made.body.episode_id as string;
    const ep = await ready(a, id);

    // The source: a signed link that seeks.
    const m = await a.call("GET", `/api/v1/episodes/${id}/media`);
    expect(m.status).toBe(200);
    expect(m.body.source).toMatchObject({ type: "audio/wav", kind: "audio" });
    expect(m.body.duration_seconds).toBeCloseTo(11, 0);
    expect(m.body.clips.map((x: any) => x.clip_id).sort()).toEqual(ep.clips.map((x: any) => x.clip_id).sort());
    expect(m.body.clips[0].pieces[0].end).toBeGreaterThan(m.body.clips[0].pieces[0].start);
    const part = await fetch(m.body.source.url, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toMatch(/^bytes 0-99\/\d+$/);
    expect((await part.arrayBuffer()).byteLength).toBe(100);

    // The lines, whole and searched (case and spacing ignored).
    const all = await a.call("GET", `/api/v1/episodes/${id}/transcript`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ limit: 2000, truncated: false });
    expect(all.body.total).toBe(all.body.segments.length);
    expect(all.body.segments[0]).toEqual({
      start: expect.any(Number),
      end: expect.any(Number),
      text: expect.any(String),
    });
    const hit = all.body.segments.find((x: any) => /country/i.test(x.text));
    expect(hit).toBeDefined();
    const found = await a.call("GET", `/api/v1/episodes/${id}/transcript?q=${encodeURIComponent(" COUNTRY ")}`);
    expect(found.body.total).toBeGreaterThan(0);
    expect(found.body.total).toBeLessThanOrEqual(all.body.total);
    expect(found.body.segments.every((x: any) => /country/i.test(x.text))).toBe(true);
    expect((await a.call("GET", `/api/v1/episodes/${id}/transcript?q=zebra`)).body).toMatchObject({
      segments: [],
      total: 0,
    });

    // The waveform: drawn on the first call, read back on the second, 304 when the browser has it.
    const w1 = await image(a, `/api/v1/episodes/${id}/waveform.png`);
    expect(w1.res.status).toBe(200);
    expect(w1.res.headers.get("content-type")).toBe("image/png");
    expect(w1.res.headers.get("cache-control")).toBe("private, max-age=86400");
    expect(w1.meta).toMatchObject({ format: "png", width: 1200, height: 120 });
    const w2 = await image(a, `/api/v1/episodes/${id}/waveform.png`);
    expect(w2.bytes.equals(w1.bytes)).toBe(true);
    expect(drawsOf("/waveform.png")).toBe(1);
    const same = await image(a, `/api/v1/episodes/${id}/waveform.png`, {
      "if-none-match": w1.res.headers.get("etag")!,
    });
    expect(same.res.status).toBe(304);
    await look("waveform.png", w1.bytes);

    // An audio clip's poster is a card.
    const clipId = ep.clips[0].clip_id;
    const p = await image(a, `/api/v1/clips/${clipId}/poster.jpg`);
    expect(p.res.status).toBe(200);
    expect(p.meta).toMatchObject({ format: "jpeg", width: 270, height: 480 });
    await image(a, `/api/v1/clips/${clipId}/poster.jpg`);
    expect(drawsOf(`/${clipId}/poster.jpg`)).toBe(1);
    await look("poster-audio.jpg", p.bytes);

    // Two first requests for one preview race: one drawing, the same bytes to both.
    const [k1, k2] = await Promise.all([1, 2].map(() => image(a, `/api/v1/episodes/${id}/styles/karaoke/preview.png`)));
    expect([k1!.res.status, k2!.res.status]).toEqual([200, 200]);
    expect(k1!.meta).toMatchObject({ format: "png", width: 360, height: 640 });
    expect(k1!.bytes.equals(k2!.bytes)).toBe(true);
    const bold = await image(a, `/api/v1/episodes/${id}/styles/bold-punch/preview.png`);
    expect(bold.meta).toMatchObject({ format: "png", width: 360, height: 640 });
    expect(bold.bytes.equals(k1!.bytes)).toBe(false);
    const previews = [...studio().images.draws].filter(([k]) => k.includes("/styles/"));
    expect(previews.map(([, n]) => n)).toEqual([1, 1]);
    await look("preview-audio-karaoke.png", k1!.bytes);
    await look("preview-audio-bold-punch.png", bold.bytes);

    const unknown = await a.call("GET", `/api/v1/episodes/${id}/styles/comic-sans/preview.png`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found", field: "style" });
    expect(unknown.body.error.styles).toContain("bold-punch");

    // Another account, and nobody signed in.
    const b = new WebClient(s.base);
    await b.signUp();
    for (const url of [
      `/api/v1/episodes/${id}/media`,
      `/api/v1/episodes/${id}/transcript`,
      `/api/v1/episodes/${id}/waveform.png`,
      `/api/v1/clips/${clipId}/poster.jpg`,
      `/api/v1/episodes/${id}/styles/boxed/preview.png`,
    ]) {
      const theirs = await b.call("GET", url);
      expect(theirs.status, url).toBe(404);
      expect(theirs.body.error.code, url).toBe("not_found");
      expect((await new WebClient(s.base).call("GET", url)).status, url).toBe(401);
    }
  });

  it("takes a video episode's poster and preview from its frames", async () => {
    const a = await funded();
    const id = await videoEpisode(a);
    const ep = await ready(a, id);
    const m = await a.call("GET", `/api/v1/episodes/${id}/media`);
    expect(m.body.source).toMatchObject({ type: "video/mp4", kind: "video" });

    const p = await image(a, `/api/v1/clips/${ep.clips[0].clip_id}/poster.jpg`);
    expect(p.meta).toMatchObject({ format: "jpeg", width: 270, height: 480 });
    // testsrc2 is all colour; the audio card is blue on dark blue. Its red channel tells them apart.
    const stats = await sharp(p.bytes).stats();
    expect(stats.channels[0]!.mean).toBeGreaterThan(60);
    const v = await image(a, `/api/v1/episodes/${id}/styles/boxed/preview.png`);
    expect(v.meta).toMatchObject({ format: "png", width: 360, height: 640 });
    await look("poster-video.jpg", p.bytes);
    await look("preview-video-boxed.png", v.bytes);
  });
});
