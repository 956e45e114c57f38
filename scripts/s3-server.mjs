#!/usr/bin/env node
/**
 * A real S3-compatible server on loopback for the tests: Ceph's radosgw (Debian's `radosgw`,
 * `ceph-mon`, `ceph-osd`) on a one-node cluster, one monitor and one OSD whose objects live in
 * memory (memstore), so it needs no disk of its own and leaves nothing behind. Starting takes
 * about 20 s; scripts/test.mjs starts one per test run when radosgw is installed and
 * CLIPD_TEST_S3_ENDPOINT is not set already.
 *
 *   node scripts/s3-server.mjs            # starts one, prints its settings as env lines, stays up
 *
 * What it makes: a user with the access key and secret printed, and the bucket `clipd-test`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const BINARIES = ["radosgw", "ceph-mon", "ceph-osd", "monmaptool", "ceph-authtool", "radosgw-admin", "ceph"];

/** Whether the Ceph programs are installed (Debian: radosgw ceph-mon ceph-osd ceph-common). */
export function s3ServerAvailable() {
  return BINARIES.every((b) => spawnSync("sh", ["-c", `command -v ${b}`]).status === 0);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns true; the bound is generous, as CI machines are slow. */
async function until(fn, what, ms = 180_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`s3-server: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Starts the cluster and radosgw. Returns the endpoint, keys and bucket, and stop(), which kills
 * the daemons and removes the folder.
 */
export async function startS3Server() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "clipd-s3-"));
  const [v1, v2, rgwPort] = [await freePort(), await freePort(), await freePort()];
  for (const d of ["mon", "osd", "run", "rgw"]) mkdirSync(path.join(dir, d));
  const conf = path.join(dir, "ceph.conf");
  const keyring = path.join(dir, "keyring");
  writeFileSync(
    conf,
    `[global]
fsid = ${randomUUID()}
mon host = [v2:127.0.0.1:${v2},v1:127.0.0.1:${v1}]
public network = 127.0.0.0/8
keyring = ${keyring}
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
osd crush chooseleaf type = 0
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail crit = 0
mon data avail warn = 0
mon max pg per osd = 1000
run dir = ${dir}/run
log file = ${dir}/$name.log
admin socket = ${dir}/run/$name.asok
[mon.a]
mon data = ${dir}/mon
[osd.0]
osd data = ${dir}/osd
osd objectstore = memstore
memstore device bytes = 4294967296
[client.rgw.t]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`,
  );
  const env = { ...process.env, CEPH_CONF: conf };
  const run = (cmd, args) =>
    execFileSync(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: 180_000 }).toString();
  const stop = () => {
    for (const name of ["radosgw", "ceph-osd", "ceph-mon"]) spawnSync("pkill", ["-9", "-f", `${name} .*${dir}`]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const [name, caps] of [
      ["mon.", ["--cap", "mon", "allow *"]],
      ["client.admin", ["--cap", "mon", "allow *", "--cap", "osd", "allow *", "--cap", "mgr", "allow *"]],
      ["osd.0", ["--cap", "mon", "allow profile osd", "--cap", "osd", "allow *", "--cap", "mgr", "allow profile osd"]],
      ["client.rgw.t", ["--cap", "mon", "allow rw", "--cap", "osd", "allow rwx", "--cap", "mgr", "allow rw"]],
    ]) {
      run("ceph-authtool", [
        ...(existsSync(keyring) ? [] : ["--create-keyring"]),
        keyring,
        "--gen-key",
        "-n",
        name,
        ...caps,
      ]);
    }
    run("monmaptool", ["--create", "--addv", "a", `[v2:127.0.0.1:${v2},v1:127.0.0.1:${v1}]`, path.join(dir, "monmap")]);
    run("ceph-mon", [
      "--id",
      "a",
      "--mkfs",
      "--monmap",
      path.join(dir, "monmap"),
      "--keyring",
      keyring,
      "--conf",
      conf,
    ]);
    run("ceph-mon", ["--id", "a", "--conf", conf]);
    run("ceph", ["osd", "create"]);
    run("ceph", ["osd", "crush", "add", "osd.0", "1", "root=default"]);
    run("ceph-osd", ["--id", "0", "--mkfs", "--conf", conf]);
    run("ceph-osd", ["--id", "0", "--conf", conf]);
    await until(() => /1 up/.test(run("ceph", ["osd", "stat"])), "the OSD to come up");
    run("radosgw", ["-n", "client.rgw.t", "--conf", conf]);
    await until(
      async () =>
        fetch(`http://127.0.0.1:${rgwPort}/`).then(
          () => true,
          () => false,
        ),
      "radosgw to listen",
    );
    const accessKeyId = `clipd${randomBytes(6).toString("hex")}`;
    const secretAccessKey = randomBytes(20).toString("hex");
    run("radosgw-admin", [
      "user",
      "create",
      "--uid",
      "clipd-test",
      "--display-name",
      "clipd tests",
      "--access-key",
      accessKeyId,
      "--secret",
      secretAccessKey,
    ]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await createBucket(endpoint, accessKeyId, secretAccessKey, "clipd-test");
    return { endpoint, region: "us-east-1", accessKeyId, secretAccessKey, bucket: "clipd-test", dir, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

async function createBucket(endpoint, accessKeyId, secretAccessKey, bucket) {
  const { S3Client, CreateBucketCommand } = await import("@aws-sdk/client-s3");
  const s3 = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  // The first request can race radosgw's own set-up of its pools: retry a few times.
  await until(
    () =>
      s3.send(new CreateBucketCommand({ Bucket: bucket })).then(
        () => true,
        (e) => e?.name === "BucketAlreadyOwnedByYou",
      ),
    "the test bucket",
  );
  s3.destroy();
}

/** The environment the tests read the server from. */
export function s3Env(s) {
  return {
    CLIPD_TEST_S3_ENDPOINT: s.endpoint,
    CLIPD_TEST_S3_REGION: s.region,
    CLIPD_TEST_S3_BUCKET: s.bucket,
    CLIPD_TEST_S3_ACCESS_KEY: s.accessKeyId,
    CLIPD_TEST_S3_SECRET_KEY: s.secretAccessKey,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (!s3ServerAvailable()) {
    console.error(
      "s3-server: radosgw, ceph-mon and ceph-osd are not installed (apt-get install " +
        "radosgw ceph-mon ceph-osd ceph-common)",
    );
    process.exit(2);
  }
  const s = await startS3Server();
  for (const [k, v] of Object.entries(s3Env(s))) console.log(`${k}=${v}`);
  const quit = () => (s.stop(), process.exit(0));
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
  setInterval(() => {}, 1 << 30);
}
