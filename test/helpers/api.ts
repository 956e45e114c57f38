// A real clipd server on loopback for the API tier, with helpers to make accounts and keys.
import { afterAll, beforeAll } from "vitest";
import { runAdmin } from "../../daemon/account/admin.js";
import type { Role } from "../../daemon/boot/roles.js";
import type { Backend } from "./backends.js";
import { openTestApp, type TestApp } from "./app.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "./https-server.js";
import { TEST_MEDIA } from "./media.js";
import { contractProblem } from "./contract.js";
import { waitFor } from "./wait.js";

export interface ApiServer extends TestApp {
  base: string;
  /** Makes an account with a live and a test key (all scopes unless given). */
  account(opts?: {
    creditCents?: number;
    plan?: boolean;
    scopes?: string[];
  }): Promise<{ accountId: string; live: string; test: string }>;
  /** fetch against the server with a key; the answer must match the OpenAPI document (see contract.ts). */
  call(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** `roles` without "work" holds every step in the queue (nothing works it). */
export async function openApiServer(
  backend: Backend,
  overrides: Record<string, any> = {},
  roles: Role[] = ["work", "serve"],
): Promise<ApiServer> {
  const t = await openTestApp(backend, { roles, overrides });
  const base = t.roles.url!;
  return {
    ...t,
    base,
    async account(opts = {}) {
      const a = await runAdmin(t.app.accounts, "account.create", {
        email: `t${Date.now()}${Math.random().toString(16).slice(2, 6)}@example.com`,
        credit_cents: opts.creditCents,
        plan: opts.plan,
      });
      const scopes = (opts.scopes ?? ["clips.read", "clips.write", "transcripts", "webhooks"]).join(",");
      const live = await runAdmin(t.app.accounts, "key.create", { account: a.account_id, mode: "live", scopes });
      const test = await runAdmin(t.app.accounts, "key.create", { account: a.account_id, mode: "test", scopes });
      return { accountId: String(a.account_id), live: String(live.key), test: String(test.key) };
    },
    async call(key, method, path, body, headers = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      const problem = contractProblem(method, path, res.status, text === "" ? undefined : parsed);
      if (problem) throw new Error(problem);
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/**
 * An API server on PGlite that may fetch from a loopback https server serving jfk.wav at /jfk.wav
 * (the live episode tests' setup); close() stops both.
 */
export async function openJfkApiServer(
  config: Record<string, unknown> = {},
): Promise<{ s: ApiServer; media: TestHttpsServer; close(): Promise<void> }> {
  const media = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
  const s = await openApiServer("pglite", {
    ...config,
    network: { allow_loopback: true, extra_ca: media.caPath },
  }).catch(async (err) => {
    await media.close();
    throw err;
  });
  return { s, media, close: async () => void (await s.close(), await media.close()) };
}

/**
 * openJfkApiServer for a whole describe block: opened before its tests, closed after them.
 * `take` receives the server and its media server once they are up.
 */
export function useJfkApiServer(
  take: (x: { s: ApiServer; media: TestHttpsServer }) => void,
  config: Record<string, unknown> = {},
): void {
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openJfkApiServer(config);
    close = opened.close;
    take(opened);
  }, 120_000);
  afterAll(() => close?.());
}

/**
 * Polls GET `path` until its `status` is `ok` or "failed" and returns the body; a failure throws
 * with its reason (a job's `error`, an episode's `failure`).
 */
export async function settleStatus(s: ApiServer, key: string, path: string, ok: string): Promise<any> {
  const body = await waitFor(
    async () => {
      const r = await s.call(key, "GET", path);
      return [ok, "failed"].includes(r.body.status) ? r.body : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 250, what: path },
  );
  if (body.status !== ok)
    throw new Error(`${path} ended ${body.status}: ${JSON.stringify(body.error ?? body.failure)}`);
  return body;
}
