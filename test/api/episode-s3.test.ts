// The account API's live flow with media on a real S3-compatible store (Ceph radosgw, started by
// scripts/test.mjs): the upload goes into the bucket, the stages read the source from it and write
// the transcript and the clip back, the download streams from it with ranges, and the data
// folder holds no media at all.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { S3Storage } from "../../daemon/storage/storage-s3.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

const env = process.env;
if (!env.CLIPD_TEST_S3_ENDPOINT)
  throw new Error(
    "no S3 server: run through scripts/test.mjs, which starts radosgw (apt-get " +
      "install radosgw ceph-mon ceph-osd ceph-common)",
  );
const prefix = `e2e-${randomBytes(4).toString("hex")}/`;

describe("episodes with media on S3", () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer("pglite", {
      storage: {
        kind: "s3",
        s3: {
          bucket: env.CLIPD_TEST_S3_BUCKET,
          prefix,
          endpoint: env.CLIPD_TEST_S3_ENDPOINT,
          region: env.CLIPD_TEST_S3_REGION,
          path_style: true,
          access_key_id: env.CLIPD_TEST_S3_ACCESS_KEY,
          secret_access_key: env.CLIPD_TEST_S3_SECRET_KEY,
        },
      },
    });
  });
  afterAll(() => s?.close());

  const poll = async (key: string, p: string, done: (b: any) => boolean) => {
    const r = await waitFor(
      async () => {
        const r = await s.call(key, "GET", p);
        return r.status !== 200 || r.body.status === "failed" || done(r.body) ? r : undefined;
      },
      { what: p, timeoutMs: 240_000, intervalMs: 250 },
    );
    expect(r.status).toBe(200);
    if (r.body.status === "failed") throw new Error(`${p} failed: ${JSON.stringify(r.body.failure ?? r.body.error)}`);
    return r.body;
  };

  it("uploads, transcribes, renders and downloads with every file in the bucket", async () => {
    const a = await s.account({ plan: true });
    const created = await s.call(a.live, "POST", "/api/v1/episodes", {
      name: "JFK on S3",
      file_name: "jfk.wav",
      target_seconds: 15,
    });
    expect(created.status).toBe(202);
    const id = created.body.episode_id;
    // The upload address is a presigned PUT on the store itself.
    expect(created.body.upload.url.startsWith(env.CLIPD_TEST_S3_ENDPOINT!)).toBe(true);
    // What went straight to the store is checked when reported done: a web page under a media name is refused.
    const html = await fetch(created.body.upload.url, {
      method: "PUT",
      headers: created.body.upload.headers,
      body: "<!doctype html><html><body>not a recording</body></html>",
    });
    expect(html.status).toBe(200);
    const refused = await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "unsupported_type", detected: "html" });
    const put = await fetch(created.body.upload.url, {
      method: "PUT",
      headers: created.body.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBeLessThan(300);
    expect((await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {})).status).toBe(200);
    const ready = await poll(a.live, `/api/v1/episodes/${id}`, (b) => b.status === "ready");
    expect(ready.clips.length).toBeGreaterThanOrEqual(1);

    const cut = await s.call(a.live, "POST", `/api/v1/episodes/${id}/clips`, { clips: [1], style: "karaoke" });
    expect(cut.status).toBe(202);
    const job = await poll(a.live, `/api/v1/jobs/${cut.body.jobs[0].job_id}`, (b) => b.status === "completed");
    // The signed link answers with a short-lived presigned GET on the store: the bytes bypass clipd.
    const hop = await fetch(job.download_url, { redirect: "manual" });
    expect(hop.status).toBe(302);
    expect(hop.headers.get("location")!.startsWith(env.CLIPD_TEST_S3_ENDPOINT!)).toBe(true);
    const whole = await fetch(job.download_url);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("content-disposition")).toMatch(/^inline; filename=".+\.mp4"/);
    expect(whole.status).toBe(200);
    const file = path.join(s.dataDir, "clip.mp4");
    await writeFile(file, Buffer.from(await whole.arrayBuffer()));
    const probe = JSON.parse(
      execFileSync("ffprobe", [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-show_entries",
        "stream=width,height,codec_name",
        "-of",
        "json",
        file,
      ]).toString(),
    );
    expect(probe.streams[0]).toMatchObject({ width: 1080, height: 1920, codec_name: "h264" });
    const ranged = await fetch(job.download_url, { headers: { range: "bytes=0-7" } });
    expect(ranged.status).toBe(206);
    expect(
      Buffer.from(await ranged.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe("ftyp");

    // The media are objects in the bucket under the prefix; the data folder's storage/ has none.
    const storage = s.app.storage as S3Storage;
    const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: prefix }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!.slice(prefix.length));
    // The upload, the transcript and the rendered clip (names as the stages give them).
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^uploads\//),
        expect.stringMatching(/transcript.*\.json$/),
        expect.stringMatching(/captioned\.mp4$/),
      ]),
    );
    expect(await readdir(path.join(s.dataDir, "storage")).catch(() => [])).toEqual([]);
  });
});
