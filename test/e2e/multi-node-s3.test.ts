// Many machines, one service (issue 18): two facade processes and two worker processes, each with
// a data folder of its own, share one PostgreSQL and one object store (Ceph radosgw, started by
// scripts/test.mjs) and nothing else. Twenty episodes come in through the API, uploads included
// (presigned PUTs straight to the store), alternating between the facades; every clip 1 is then
// rendered, and one worker is killed with SIGKILL while it renders. Every episode and every render
// must complete exactly once, every clip must download, and the killed step must leave no object
// behind in the bucket.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgDatabase } from "../helpers/backends.js";
import { spawnClipd, type Spawned } from "../helpers/cli.js";
import { daemonEnv, OPS_TOKEN } from "../helpers/daemon-config.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

const env = process.env;
if (!env.CLIPD_TEST_S3_ENDPOINT || !env.CLIPD_TEST_PG_URL)
  throw new Error("run through scripts/test.mjs: it starts PostgreSQL and the S3 server (radosgw)");
const EPISODES = 20;
const prefix = `multi-${randomBytes(4).toString("hex")}/`;
const s3 = {
  bucket: env.CLIPD_TEST_S3_BUCKET,
  prefix,
  endpoint: env.CLIPD_TEST_S3_ENDPOINT,
  region: env.CLIPD_TEST_S3_REGION,
  path_style: true,
  access_key_id: env.CLIPD_TEST_S3_ACCESS_KEY,
  secret_access_key: env.CLIPD_TEST_S3_SECRET_KEY,
};

describe("two facades and two workers on one PostgreSQL and one object store", () => {
  let databaseUrl: string;
  const facades: Array<{ p: Spawned; base: string }> = [];
  const workers: Spawned[] = [];
  let client: S3Client;
  let db: pg.Client;
  let scratch: string;

  /** A process of one role, with a data folder of its own and the shared database and store. */
  async function start(role: "serve" | "work"): Promise<Spawned> {
    const d = await daemonEnv(
      "pglite",
      {
        storage: { kind: "s3", s3 },
        api: { rate_limit: { requests: 1_000_000, window_seconds: 60 } },
        queue: { concurrency: 2 },
      },
      { DATABASE_URL: databaseUrl },
    );
    return spawnClipd([role], d.env);
  }

  beforeAll(async () => {
    databaseUrl = await freshPgDatabase();
    scratch = await mkdtemp(path.join(os.tmpdir(), "clipd-multi-"));
    // The first process migrates the database; the others start on a migrated one.
    const first = await start("serve");
    facades.push({ p: first, base: (await first.waitFor(/is up: (http:\/\/[\d.:]+)/, 180_000))[1]! });
    const second = await start("serve");
    facades.push({ p: second, base: (await second.waitFor(/is up: (http:\/\/[\d.:]+)/, 180_000))[1]! });
    for (let i = 0; i < 2; i++) workers.push(await start("work"));
    for (const w of workers) await w.waitFor(/"msg":"worker ready"/, 180_000);
    client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.access_key_id!, secretAccessKey: s3.secret_access_key! },
    });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  }, 400_000);

  afterAll(async () => {
    for (const p of [...facades.map((f) => f.p), ...workers])
      if (p.child.exitCode === null && p.child.signalCode === null) p.kill("SIGKILL");
    await Promise.all([...facades.map((f) => f.p.exited), ...workers.map((w) => w.exited)]);
    await db?.end();
    client?.destroy();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const call = async (n: number, key: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${facades[n % 2]!.base}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const poll = (n: number, key: string, p: string, done: (b: any) => boolean) =>
    waitFor(
      async () => {
        const r = await call(n, key, "GET", p);
        if (r.status !== 200 || r.body.status === "failed")
          throw new Error(`${p}: ${r.status} ${JSON.stringify(r.body)}`);
        return done(r.body) ? r.body : undefined;
      },
      { what: p, timeoutMs: 600_000, intervalMs: 500 },
    );

  it("takes twenty episodes and their renders through, once each, with a worker killed mid-render", async () => {
    const acc = await call(0, OPS_TOKEN, "POST", "/api/v1/admin", {
      command: "account.create",
      args: { email: "multi@example.com", credit_cents: 10_000_000 },
    });
    const key = String(
      (
        await call(1, OPS_TOKEN, "POST", "/api/v1/admin", {
          command: "key.create",
          args: { account: acc.body.account_id, mode: "live", scopes: "clips.read,clips.write" },
        })
      ).body.key,
    );
    const wav = await readFile(TEST_MEDIA.jfkWav);

    // Created on one facade, uploaded straight to the store, reported done on the other.
    const ids = await Promise.all(
      Array.from({ length: EPISODES }, async (_, n) => {
        const created = await call(n, key, "POST", "/api/v1/episodes", { name: `episode ${n}`, file_name: "jfk.wav" });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        expect(created.body.upload.url.startsWith(s3.endpoint!)).toBe(true);
        const put = await fetch(created.body.upload.url, {
          method: "PUT",
          headers: created.body.upload.headers,
          body: wav,
        });
        expect(put.status).toBeLessThan(300);
        expect(
          (await call(n + 1, key, "POST", `/api/v1/episodes/${created.body.episode_id}/uploaded`, {})).status,
        ).toBe(200);
        return String(created.body.episode_id);
      }),
    );
    await Promise.all(ids.map((id, n) => poll(n, key, `/api/v1/episodes/${id}`, (b) => b.status === "ready")));

    const jobs = await Promise.all(
      ids.map(async (id, n) => {
        const cut = await call(n, key, "POST", `/api/v1/episodes/${id}/clips`, { clips: [1] });
        expect(cut.status, JSON.stringify(cut.body)).toBe(202);
        return String(cut.body.jobs[0].job_id);
      }),
    );
    // Kill a worker the moment it starts a render, while ffmpeg runs.
    const rendering =
      /"stage":"caption-burn"[^\n]*"msg":"step started"|"msg":"step started"[^\n]*"stage":"caption-burn"/;
    const victim = await waitFor(() => workers.find((w) => rendering.test(w.output())), {
      what: "a worker to start a render",
      timeoutMs: 600_000,
      intervalMs: 20,
    });
    victim.kill("SIGKILL");
    await victim.exited;
    const started = [...victim.output().matchAll(/^.*"msg":"step started".*$/gm)]
      .map((m) => JSON.parse(m[0]))
      .filter((l) => l.stage === "caption-burn");
    // A run's cut step finishes too: a render is told by its run and its step.
    const finished = new Set(
      [...victim.output().matchAll(/^.*"msg":"step finished".*$/gm)]
        .map((m) => JSON.parse(m[0]))
        .filter((l) => l.stage === "caption-burn")
        .map((l) => l.runId),
    );
    const cutShort = started.filter((l) => !finished.has(l.runId)).map((l) => l.runId as string);
    expect(cutShort.length, "the killed worker had a render running").toBeGreaterThan(0);

    const done = await Promise.all(
      jobs.map((j, n) => poll(n, key, `/api/v1/jobs/${j}`, (b) => b.status === "completed")),
    );
    for (const [n, job] of done.entries()) {
      const res = await fetch(job.download_url);
      expect(res.status).toBe(200);
      const file = path.join(scratch, `clip-${n}.mp4`);
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      const probe = JSON.parse(
        execFileSync("ffprobe", [
          "-v",
          "error",
          "-select_streams",
          "v:0",
          "-show_entries",
          "stream=width,height",
          "-of",
          "json",
          file,
        ]).toString(),
      );
      expect(probe.streams[0]).toMatchObject({ width: 1080, height: 1920 });
      await rm(file);
    }

    // Exactly once: one import run per episode, one render run per job, each succeeded.
    const runs = (
      await db.query(
        `select origin_ref, count(*)::int as n, bool_and(state = 'succeeded') as ` +
          `ok from runs where pipeline = 'api-episode' group by origin_ref`,
      )
    ).rows;
    for (const id of ids)
      expect(
        runs.find((r) => r.origin_ref === `episode:${id}`),
        id,
      ).toMatchObject({ n: 1, ok: true });
    const renders = (await db.query(`select id, state from runs where pipeline = 'clip'`)).rows;
    expect(renders).toHaveLength(EPISODES);
    expect(renders.every((r) => r.state === "succeeded")).toBe(true);
    // The run the kill cut short was finished by the other worker.
    for (const id of cutShort) expect(renders.find((r) => r.id === id)?.state).toBe("succeeded");

    // Nothing left behind: every object belongs to an upload or a succeeded run, none is a
    // temporary name, and no multipart upload was left open.
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((o) => o.Key!.slice(prefix.length)));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    const succeeded = new Set((await db.query(`select id from runs where state = 'succeeded'`)).rows.map((r) => r.id));
    for (const k of keys) {
      expect(k, "no temporary object").not.toMatch(/\.part$|\.tmp$|\/t[0-9a-f]{12}$/);
      if (k.startsWith("runs/")) expect(succeeded.has(k.split("/")[1]), k).toBe(true);
      else expect(k, "an upload").toMatch(/^uploads\//);
    }
    expect(keys.filter((k) => k.startsWith("uploads/"))).toHaveLength(EPISODES);
    const open = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: prefix }));
    expect(open.Uploads ?? []).toEqual([]);
  });
});
