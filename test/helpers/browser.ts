// The browser tests' two real parts: Debian's Chromium driven by playwright-core (no downloaded
// browser build), and a real `clipd start` child process serving the website on loopback.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { mergeDeep } from "../../config/loader.js";
import { chromiumCommand } from "../../daemon/ops/os-packages.js";
import type { Backend } from "./backends.js";
import { repoRoot, runClipd, spawnClipd, type Spawned } from "./cli.js";
import { daemonEnv } from "./daemon-config.js";
import { testTls } from "./https-server.js";

// Flags for a quiet headless run in a container: no sandbox (root in CI), no GPU, and none of the
// background fetches a fresh profile would start (nothing outside loopback can be reached).
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

/** Launches Chromium, or fails saying how to install it: a missing browser must not skip the tests. */
export async function launchChromium(): Promise<Browser> {
  const exe = chromiumCommand();
  if (!existsSync(exe)) {
    throw new Error(
      `Chromium is not installed (${exe} is missing); the browser tests need ` +
        `it. Install it with: apt-get update && apt-get install -y chromium (npm ` +
        `test does this itself when run as root on Debian), or point CLIPD_CHROMIUM ` +
        `at a Chromium binary.`,
    );
  }
  return chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS, timeout: 120_000 });
}

/** One browser for the whole test file, closed after it. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("the browser is not started (useBrowser() must be called inside a describe block)");
    return browser;
  };
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export interface WebClipd {
  /** http://127.0.0.1:<port>, the site's origin. */
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  daemon: Spawned;
  /** Runs the clipd CLI against this daemon, as the operator would; throws on a non-zero exit. */
  cli(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `clipd start` on loopback. PostgreSQL when npm test provides one (CLIPD_TEST_PG_URL), else
 * the embedded PGlite. The port is fixed up front because the CLI finds the daemon by
 * server.port. Webhook addresses on loopback are allowed and the test CA is trusted
 * (network.allow_loopback and network.extra_ca: tests only), so a receiver in the test
 * (test/helpers/webhook-receiver.ts) can hear them.
 */
export async function startWebClipd(
  opts: { backend?: Backend; config?: Record<string, any>; env?: Record<string, string> } = {},
): Promise<WebClipd> {
  const backend = opts.backend ?? (process.env.CLIPD_TEST_PG_URL ? "postgres" : "pglite");
  const port = await freePort();
  const config = mergeDeep(
    {
      server: { port, host: "127.0.0.1" },
      network: { allow_loopback: true, extra_ca: (await testTls()).caPath },
      // Every test browser signs up from 127.0.0.1: the per-address sign-up limit would stop the file.
      web: { secure_cookies: "never", signups_per_address_per_day: 1000 },
    },
    opts.config ?? {},
  );
  const d = await daemonEnv(backend, config, opts.env);
  const daemon = spawnClipd(["start"], d.env);
  // Never outlive the test process, whatever happens to stop().
  process.once("exit", () => daemon.kill("SIGKILL"));
  try {
    await daemon.waitFor(/is up: http:\/\/[\d.:]+/, 120_000);
  } catch (err) {
    daemon.kill("SIGKILL");
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir: d.dataDir,
    env: d.env,
    daemon,
    async cli(args) {
      const r = await runClipd(args, d.env, { timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`clipd ${args.join(" ")} exited ${r.code}:\n${r.output}`);
      return r.output;
    },
    async stop() {
      // A daemon that ignores SIGTERM is a defect: the hook's own time limit reports it, and the
      // exit handler below still kills it when the test process ends.
      daemon.kill("SIGTERM");
      await daemon.exited;
      await rm(d.dataDir, { recursive: true, force: true });
    },
  };
}

/** A daemon for the whole test file, stopped after it. */
export function useWebClipd(opts: Parameters<typeof startWebClipd>[0] = {}): () => WebClipd {
  let clipd: WebClipd | undefined;
  beforeAll(async () => {
    clipd = await startWebClipd(opts);
  });
  afterAll(async () => {
    await clipd?.stop();
  });
  return () => {
    if (!clipd) throw new Error("clipd is not started (useWebClipd() must be called inside a describe block)");
    return clipd;
  };
}

/** The session cookie a browser context holds for the site, as a Cookie header value. */
export async function cookieHeader(context: BrowserContext, url: string): Promise<string> {
  return (await context.cookies(url)).map((c) => `${c.name}=${c.value}`).join("; ");
}

/** The widths the site is photographed at: a common phone, and a small laptop. */
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/**
 * Opens `url` at each width and writes docs/screenshots/<name>-<phone|desktop>.png once `ready`
 * resolves (a wait on the page's state). Only the viewport is taken, to keep the files small.
 */
export async function screenshot(page: Page, name: string, url: string, ready: () => Promise<unknown>): Promise<void> {
  for (const [kind, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.goto(url);
    await ready();
    await page.screenshot({
      path: path.join(repoRoot, "docs", "screenshots", `${name}-${kind}.png`),
      animations: "disabled",
      caret: "hide",
    });
  }
}
