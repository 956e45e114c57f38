/**
 * Website benchmark: Lighthouse (performance, accessibility, best practices) on the sign-in page,
 * the signed-in keys page and the studio's episode page (an episode with its clips and one made
 * clip: bench/web-episode.ts), served by a real `clipd start` process on loopback (embedded
 * PGlite, pocketsphinx), in Debian's Chromium. Mobile (Lighthouse's default: simulated slow 4G and a 4x slower CPU) and
 * desktop presets. The keys page's session is signed up over HTTP as the site would, and its
 * cookies are put into the browser's own cookie jar (through playwright-core over DevTools), so the
 * audited page keeps whatever cookies the server sets, as a real browser would.
 *
 *   npm run build && node dist/bench/web.js
 *
 * Target: at least 90 for performance and accessibility on every page. BENCH_RUNS sets the runs of
 * each page and preset (default 3; the run with the median performance score is reported);
 * BENCH_PAGES=episode audits only the pages named (sign-in, keys, episode).
 * The web app must be built (dist/web; `npm start` and `npm test` build it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import lighthouse, { desktopConfig, type Flags, type Result } from "lighthouse";
import { chromium } from "playwright-core";
import { projectRoot } from "../config/loader.js";
import { chromiumCommand } from "../daemon/ops/os-packages.js";
import { freePort } from "./_pg.js";
import { startProcess } from "./_proc.js";
import { makeWebEpisode, type WebCall } from "./web-episode.js";

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
/** BENCH_PAGES=episode (or sign-in,keys,episode): only those pages. */
const ONLY = process.env.BENCH_PAGES?.split(",").map((w) => w.trim());
const CATEGORIES = ["performance", "accessibility", "best-practices"];
const TIMINGS = [
  ["first-contentful-paint", "FCP"],
  ["largest-contentful-paint", "LCP"],
  ["total-blocking-time", "TBT"],
  ["speed-index", "SI"],
] as const;

/** A small cookie jar for the set-up calls (the site's calls need the session's cookies). */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }
  get(name: string) {
    return this.cookies.get(name);
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  all() {
    return [...this.cookies].map(([name, value]) => ({ name, value }));
  }
}

/**
 * Signs up a fresh account and makes one key, as the site would; returns the session's cookies and a way to call as it.
 */
async function signUp(base: string): Promise<{ cookies: Array<{ name: string; value: string }>; call: WebCall }> {
  const jar = new Jar();
  const call = async (method: string, p: string, body?: unknown) => {
    const csrf = method === "GET" ? undefined : await session();
    const res = await fetch(base + p, {
      method,
      headers: {
        cookie: jar.header(),
        origin: base,
        "content-type": "application/json",
        ...(csrf ? { "x-csrf-token": csrf } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    jar.take(res);
    // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const session = async () => ((await call("GET", "/web/api/v1/session")) as { csrf_token: string }).csrf_token;
  await call("POST", "/web/api/v1/signup", {
    email: `bench-${Date.now()}@example.com`,
    password: "bench: lighthouse sees the studio",
  });
  await call("POST", "/web/api/v1/keys", {
    name: "bench reader",
    mode: "live",
    scopes: ["clips.read"],
    expires_in_days: 90,
  });
  if (!jar.get("clipd_session")) throw new Error("signing up set no clipd_session cookie");
  return { cookies: jar.all(), call };
}

/** Puts cookies into the jar of Chromium's default profile, which Lighthouse's tabs share. */
async function addCookies(port: number, base: string, cookies: Array<{ name: string; value: string }>) {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    await browser.contexts()[0]!.addCookies(cookies.map((c) => ({ ...c, url: base })));
  } finally {
    await browser.close(); // only disconnects: the browser was not launched by playwright
  }
}

/** Headless Chromium with a DevTools port for Lighthouse; resolves once it listens. */
function startChromium(profile: string): Promise<{ child: ChildProcess; port: number }> {
  const args = [
    "--headless=new",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "about:blank",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(chromiumCommand(), args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`chromium exited (${code}) before listening:\n${err.slice(-2000)}`)));
  });
}

/** SIGTERM, then SIGKILL after 10 s; resolves on exit. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => (clearTimeout(timer), resolve()));
    child.kill("SIGTERM");
  });
}

interface Row {
  page: string;
  preset: "mobile" | "desktop";
  scores: Record<string, number>;
  ms: Record<string, number>;
  cls: number;
  /** What the page transferred, KiB (Lighthouse's total-byte-weight). */
  kib: number;
  /** Audits under 0.9 that count toward a category under 90. */
  failing: string[];
}

function toRow(page: string, preset: Row["preset"], lhr: Result): Row {
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)]));
  const ms = Object.fromEntries(TIMINGS.map(([id, label]) => [label, Math.round(lhr.audits[id]?.numericValue ?? NaN)]));
  const failing: string[] = [];
  for (const c of CATEGORIES) {
    if (scores[c]! >= 90) continue;
    for (const ref of lhr.categories[c]?.auditRefs ?? []) {
      const a = lhr.audits[ref.id];
      if (ref.weight > 0 && a && a.score !== null && a.score < 0.9)
        failing.push(`${c}: ${a.id} (${a.title}${a.displayValue ? `, ${a.displayValue}` : ""})`);
    }
  }
  // What moved the layout, when it moved enough to count (Lighthouse's own culprits, by score).
  const shifts = (
    lhr.audits["layout-shifts"]?.details as { items?: Array<{ node?: { snippet?: string }; score?: number }> }
  )?.items;
  if ((lhr.audits["cumulative-layout-shift"]?.numericValue ?? 0) > 0.05)
    for (const it of shifts ?? []) failing.push(`layout shift ${it.score?.toFixed(3)}: ${it.node?.snippet ?? "?"}`);
  return {
    page,
    preset,
    scores,
    ms,
    cls: lhr.audits["cumulative-layout-shift"]?.numericValue ?? NaN,
    kib: (lhr.audits["total-byte-weight"]?.numericValue ?? NaN) / 1024,
    failing,
  };
}

async function audit(url: string, port: number, preset: Row["preset"]): Promise<Result> {
  const flags: Flags = { port, output: "json", logLevel: "error", onlyCategories: CATEGORIES };
  const r = await lighthouse(url, flags, preset === "desktop" ? desktopConfig : undefined);
  if (!r) throw new Error(`lighthouse returned nothing for ${url}`);
  if (r.lhr.runtimeError) throw new Error(`lighthouse: ${r.lhr.runtimeError.code} ${r.lhr.runtimeError.message}`);
  // The app sends a signed-out visitor from /keys to /signin: landing elsewhere means the session was not used.
  if (r.lhr.finalDisplayedUrl !== url) throw new Error(`lighthouse ended on ${r.lhr.finalDisplayedUrl}, not ${url}`);
  return r.lhr;
}

async function main() {
  const root = projectRoot();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "clipd-bench-web-"));
  const procs: ChildProcess[] = [];
  try {
    const cfgFile = path.join(tmp, "clipd.yaml");
    writeFileSync(
      cfgFile,
      "watch: { enabled: false }\nlog: { level: warn, pretty: false }\nweb: { " +
        "secure_cookies: never }\ntranscribe: { engine: pocketsphinx }\n",
    );
    const port = await freePort();
    const env = {
      ...process.env,
      CLIPD_DATA_DIR: path.join(tmp, "data"),
      DATABASE_URL: "",
      CLIPD_CONFIG: cfgFile,
      PORT: String(port),
    };
    procs.push(await startProcess([path.join(root, "dist", "daemon", "boot", "main.js"), "start"], env, /is up:/));
    const base = `http://127.0.0.1:${port}`;
    const index = await fetch(`${base}/`);
    if (!index.ok || !(index.headers.get("content-type") ?? "").includes("text/html"))
      throw new Error(`the website is not served at ${base}/ (${index.status}); is dist/web built?`);
    const { cookies, call } = await signUp(base);
    const episode = await makeWebEpisode(call, env);
    const chrome = await startChromium(path.join(tmp, "profile"));
    procs.push(chrome.child);

    // Signed out first: a signed-in visitor of /signin is sent on to /keys.
    const pages = [
      { page: "sign-in (/signin)", url: `${base}/signin`, before: async () => {} },
      { page: "keys (/keys, signed in)", url: `${base}/keys`, before: () => addCookies(chrome.port, base, cookies) },
      {
        page: "episode (/episodes/{id}, signed in)",
        url: `${base}/episodes/${episode}`,
        before: () => addCookies(chrome.port, base, cookies),
      },
    ].filter((p) => !ONLY || ONLY.some((w) => p.page.startsWith(w)));
    const rows: Row[] = [];
    for (const p of pages) {
      await p.before();
      for (const preset of ["mobile", "desktop"] as const) {
        const runs: Row[] = [];
        for (let i = 0; i < RUNS; i++) runs.push(toRow(p.page, preset, await audit(p.url, chrome.port, preset)));
        runs.sort((a, b) => a.scores.performance! - b.scores.performance!);
        rows.push(runs[Math.floor(runs.length / 2)]!);
      }
    }
    report(rows);
  } finally {
    await Promise.all(procs.map(stop)); // Chromium writes its profile until it exits
    rmSync(tmp, { recursive: true, force: true });
  }
}

function report(rows: Row[]) {
  const lines = [
    `Website benchmark: Lighthouse, median of ${RUNS} run(s) by performance ` +
      `score, ${os.cpus().length} cores, Chromium at ${chromiumCommand()}`,
    "",
    "| page | preset | performance | accessibility | best practices | FCP ms " +
      "| LCP ms | TBT ms | Speed Index ms | CLS | KiB |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.page} | ${r.preset} | ${r.scores.performance} | ${r.scores.accessibility} ` +
        `| ${r.scores["best-practices"]} | ${r.ms.FCP} | ${r.ms.LCP} | ${r.ms.TBT} ` +
        `| ${r.ms.SI} | ${r.cls.toFixed(3)} | ${Math.round(r.kib)} |`,
    ),
    "",
  ];
  const met = rows.every((r) => r.scores.performance! >= 90 && r.scores.accessibility! >= 90);
  lines.push(`Target: performance and accessibility >= 90 on every page: ${met ? "met" : "NOT met"}.`);
  for (const r of rows) for (const f of r.failing) lines.push(`- ${r.page}, ${r.preset}: ${f}`);
  process.stdout.write(lines.join("\n") + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
