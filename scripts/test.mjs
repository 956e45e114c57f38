// `npm test`: checks the OS tools the tests need (scripts/os-packages.mjs: installs them with apt
// when run as root on Debian, otherwise prints the exact command), makes sure a PostgreSQL server is available
// (CLIPD_TEST_PG_URL, or a throwaway cluster on loopback started here), then runs vitest.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, chownSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { postgresBin } from "../dist/daemon/ops/os-packages.js";
import { ensureOsPackages } from "./os-packages.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// A server named by CLIPD_TEST_PG_URL (or CLIPD_TEST_S3_ENDPOINT) stands in for the local package.
const CEPH = ["radosgw", "ceph-mon", "ceph-osd", "ceph"];
const ignore = (name) =>
  (name === "postgresql" && !!process.env.CLIPD_TEST_PG_URL) ||
  (CEPH.includes(name) && !!process.env.CLIPD_TEST_S3_ENDPOINT);
if (!ensureOsPackages("tests", { label: "clipd tests", ignore })) process.exit(1);
// A whole run checks layout and lint first (npm run lint): Biome's format and rules, the type-aware
// promise rules, and the 120-character line. A file or two named for a quick run skips it.
if (process.argv.slice(2).every((a) => a.startsWith("-"))) {
  const lint = spawnSync("npm", ["run", "--silent", "lint"], { stdio: "inherit", cwd: root, env: process.env });
  if (lint.status !== 0) {
    console.error("clipd tests: the formatter or a lint rule failed (npm run format fixes what can be fixed)");
    process.exit(1);
  }
}

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

let stopCluster = () => {};
if (!process.env.CLIPD_TEST_PG_URL) {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(os.tmpdir(), "clipd-pg-"));
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, args) => {
    const full = asRoot ? ["-u", "postgres", "--", path.join(bin, cmd), ...args] : args;
    const r = spawnSync(asRoot ? "runuser" : path.join(bin, cmd), asRoot ? full : args, {
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  };
  if (asRoot)
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"]).toString()),
      Number(execFileSync("id", ["-g", "postgres"]).toString()),
    );
  run("initdb", ["-D", path.join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync"]);
  writeFileSync(path.join(dir, "note"), "throwaway test cluster");
  run("pg_ctl", [
    "-D",
    path.join(dir, "data"),
    "-l",
    path.join(dir, "log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    "start",
  ]);
  process.env.CLIPD_TEST_PG_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
  stopCluster = () => {
    try {
      run("pg_ctl", ["-D", path.join(dir, "data"), "-m", "immediate", "stop"]);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  console.error(`clipd tests: throwaway PostgreSQL on 127.0.0.1:${port}`);
}

const args = process.argv.slice(2);
// The object store (about 20 s to start) only for a whole run or for the files that use it.
let stopS3 = () => {};
if (
  !process.env.CLIPD_TEST_S3_ENDPOINT &&
  (args.every((a) => a.startsWith("-")) || args.some((a) => /s3|multi-node/.test(a)))
) {
  const { startS3Server, s3Env } = await import("./s3-server.mjs");
  const s3 = await startS3Server();
  Object.assign(process.env, s3Env(s3));
  stopS3 = s3.stop;
  console.error(`clipd tests: throwaway S3 server (Ceph radosgw) on ${s3.endpoint}`);
}
const r = spawnSync(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...args], {
  stdio: "inherit",
  env: process.env,
  cwd: root,
});
stopCluster();
stopS3();
process.exit(r.status ?? 1);
