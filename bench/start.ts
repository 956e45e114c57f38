/**
 * bench/start: how long `clipd start` takes to say it is up, on the embedded PGlite database: a first
 * start (a new data folder, so the schema is made) and a restart (the same folder again). Each test
 * that starts a daemon, each restarted worker and each CLI run pays this.
 *
 * Builds are compared side by side, interleaved round by round on the same machine (it is shared
 * and noisy): pass each built checkout's folder with --build (default: this one), the first is
 * the baseline of the ratios.
 *
 *   npm run build && node dist/bench/start.js [--rounds 5] [--build DIR ...]
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startProcess } from "./_proc.js";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function args(argv: string[]): { rounds: number; builds: string[] } {
  const builds: string[] = [];
  let rounds = 5;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--build") builds.push(path.resolve(argv[++i] ?? "."));
    else if (argv[i] === "--rounds") rounds = Math.max(1, Number(argv[++i]) || rounds);
  }
  return { rounds, builds: builds.length ? builds : [here] };
}

/** Seconds from spawning `clipd start` to its "is up" line; the daemon is then killed. */
async function timeStart(root: string, dataDir: string): Promise<number> {
  const config = path.join(dataDir, "bench.yaml");
  await writeFile(config, "server:\n  port: 0\n  host: 127.0.0.1\nwatch:\n  enabled: false\nlog:\n  pretty: false\n");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLIPD_DATA_DIR: dataDir,
    CLIPD_CONFIG: config,
    CLIPD_AUTO_MODEL: "off",
  };
  delete env.DATABASE_URL;
  const t0 = performance.now();
  const child = await startProcess([path.join(root, "dist/daemon/boot/main.js"), "start"], env, /is up: /);
  const seconds = (performance.now() - t0) / 1000;
  child.removeAllListeners("exit");
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
  return seconds;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const { rounds, builds } = args(process.argv.slice(2));
  const times = builds.map(() => ({ first: [] as number[], restart: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, root] of builds.entries()) {
      const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-start-"));
      try {
        times[i]!.first.push(await timeStart(root, dir));
        times[i]!.restart.push(await timeStart(root, dir));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  const base = { first: median(times[0]!.first), restart: median(times[0]!.restart) };
  console.log(
    `clipd start on PGlite, ${rounds} rounds interleaved, ${os.availableParallelism()} cores, median seconds\n`,
  );
  console.log("| build | first start | restart | first / baseline | restart / baseline |");
  console.log("|---|---:|---:|---:|---:|");
  for (const [i, root] of builds.entries()) {
    const m = { first: median(times[i]!.first), restart: median(times[i]!.restart) };
    const name = path.relative(process.cwd(), root) || ".";
    console.log(
      `| ${name} | ${m.first.toFixed(2)} | ${m.restart.toFixed(2)} | ${(m.first / base.first).toFixed(2)} | ` +
        `${(m.restart / base.restart).toFixed(2)} |`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
