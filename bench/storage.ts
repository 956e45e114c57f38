/**
 * bench/storage: upload and download throughput with media on an object store, through clipd's
 * facade against presigned straight to the store, side by side in one run.
 *
 * Starts a real S3 server (Ceph radosgw on a one-node cluster, scripts/s3-server.mjs; or the one
 * named by CLIPD_TEST_S3_*), and two in-process clipd facades on the embedded database with media
 * on it: one with storage.s3.uploads/downloads `proxy` (bytes through clipd), one with `presigned`
 * and `redirect` (bytes straight to and from the store). For each file size it creates an API
 * episode, PUTs the file to its upload address, and GETs it back through a download link.
 *
 *   npm run build && node dist/bench/storage.js          # BENCH_SIZES_MB=16,128 BENCH_RUNS=3
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createReadStream } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import pino from "pino";
import { loadConfig, projectRoot } from "../config/loader.js";
import { runAdmin } from "../daemon/account/admin.js";
import { openApp } from "../daemon/boot/app.js";
import { startRoles } from "../daemon/boot/roles.js";
import { LinkSigner } from "../facade/signing.js";
import { downloadLink } from "../facade/uploads.js";

const SIZES = (process.env.BENCH_SIZES_MB ?? "16,128").split(",").map(Number);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function s3Settings(): Promise<{ s3: Record<string, unknown>; stop(): void }> {
  const e = process.env;
  if (e.CLIPD_TEST_S3_ENDPOINT) {
    return {
      s3: {
        bucket: e.CLIPD_TEST_S3_BUCKET,
        endpoint: e.CLIPD_TEST_S3_ENDPOINT,
        region: e.CLIPD_TEST_S3_REGION,
        path_style: true,
        access_key_id: e.CLIPD_TEST_S3_ACCESS_KEY,
        secret_access_key: e.CLIPD_TEST_S3_SECRET_KEY,
      },
      stop() {},
    };
  }
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  const { startS3Server } = (await import(path.join(projectRoot(), "scripts", "s3-server.mjs"))) as any;
  const s = await startS3Server();
  return {
    s3: {
      bucket: s.bucket,
      endpoint: s.endpoint,
      region: s.region,
      path_style: true,
      access_key_id: s.accessKeyId,
      secret_access_key: s.secretAccessKey,
    },
    stop: s.stop,
  };
}

async function facade(s3: Record<string, unknown>, mode: "proxy" | "presigned", dir: string, secret: string) {
  const cfg = loadConfig({
    env: { CLIPD_DATA_DIR: path.join(dir, mode) },
    overrides: {
      server: { port: 0, host: "127.0.0.1", signing_secret: secret },
      api: { rate_limit: { requests: 1_000_000, window_seconds: 60 } },
      watch: { enabled: false },
      log: { level: "silent" },
      storage: {
        kind: "s3",
        s3: {
          ...s3,
          prefix: `bench-${mode}-${randomBytes(3).toString("hex")}/`,
          uploads: mode === "proxy" ? "proxy" : "presigned",
          downloads: mode === "proxy" ? "proxy" : "redirect",
        },
      },
    },
  });
  const app = await openApp(cfg, pino({ level: "silent" }), { memoryDb: true });
  const roles = await startRoles(app, ["serve"]);
  const a = await runAdmin(app.accounts, "account.create", { email: `bench-${mode}@example.com`, plan: true });
  const key = String(
    (
      await runAdmin(app.accounts, "key.create", {
        account: a.account_id,
        mode: "live",
        scopes: "clips.read,clips.write",
      })
    ).key,
  );
  const signer = await LinkSigner.create(app.db, secret);
  return { app, roles, key, base: roles.url!, signer };
}

/** MB/s of moving `bytes` in `ms`. */
const rate = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-storage-"));
  const server = await s3Settings();
  const secret = randomBytes(32).toString("hex");
  const sides = {
    proxy: await facade(server.s3, "proxy", dir, secret),
    presigned: await facade(server.s3, "presigned", dir, secret),
  };
  const rows: string[] = [];
  try {
    for (const mb of SIZES) {
      const file = path.join(dir, `${mb}.mp4`);
      // An MP4 signature and then noise: the upload is typed by its name; the bytes do not compress.
      await writeFile(
        file,
        Buffer.concat([
          Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex"),
          randomBytes(mb * 1024 * 1024 - 24),
        ]),
      );
      const bytes = mb * 1024 * 1024;
      const result: Record<string, { up: number[]; down: number[] }> = {
        proxy: { up: [], down: [] },
        presigned: { up: [], down: [] },
      };
      for (let r = 0; r < RUNS; r++) {
        // Alternated, so drift on a shared machine falls on both sides alike.
        for (const mode of (r % 2 ? ["presigned", "proxy"] : ["proxy", "presigned"]) as Array<keyof typeof sides>) {
          const f = sides[mode];
          const created = await fetch(`${f.base}/api/v1/episodes`, {
            method: "POST",
            headers: { authorization: `Bearer ${f.key}`, "content-type": "application/json" },
            body: JSON.stringify({ file_name: "bench.mp4" }),
            // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
          }).then((x) => x.json() as any);
          const t0 = performance.now();
          const put = await fetch(created.upload.url, {
            method: "PUT",
            headers: { ...created.upload.headers, "content-length": String(bytes) },
            // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
            body: Readable.toWeb(createReadStream(file)) as any,
            duplex: "half",
          } as RequestInit);
          if (put.status >= 300) throw new Error(`${mode} upload: ${put.status} ${await put.text()}`);
          result[mode]!.up.push(performance.now() - t0);
          const link = downloadLink(
            { config: f.app.config, signer: f.signer },
            {
              key: `uploads/${(await f.app.db.query(`select account_id from episodes where id = $1`, [created.episode_id])).rows[0].account_id}/${created.episode_id}/bench.mp4`,
              name: "bench.mp4",
              origin: f.base,
            },
          );
          const t1 = performance.now();
          const got = await fetch(link.url);
          let n = 0;
          // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
          for await (const chunk of got.body as any) n += chunk.length;
          if (n !== bytes) throw new Error(`${mode} download: ${n} of ${bytes} bytes (${got.status})`);
          result[mode]!.down.push(performance.now() - t1);
        }
      }
      for (const mode of ["proxy", "presigned"] as const) {
        const r = result[mode]!;
        rows.push(
          `| ${mb} | ${mode === "proxy" ? "through clipd" : "presigned, straight to the store"} ` +
            `| ${rate(bytes, median(r.up)).toFixed(0)} | ${rate(bytes, median(r.down)).toFixed(0)} |`,
        );
      }
      const up = median(result.proxy!.up) / median(result.presigned!.up);
      const down = median(result.proxy!.down) / median(result.presigned!.down);
      rows.push(`| ${mb} | presigned ÷ through clipd (speed) | ${up.toFixed(2)}× | ${down.toFixed(2)}× |`);
      await rm(file, { force: true });
    }
  } finally {
    for (const f of Object.values(sides)) await f.roles.stop("bench done");
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `bench/storage: ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}, median of ${RUNS} runs, Ceph radosgw on loopback\n`,
  );
  console.log("| MB | path | upload MB/s | download MB/s |\n|---:|---|---:|---:|");
  for (const r of rows) console.log(r);
  process.exit(0);
}

await main();
