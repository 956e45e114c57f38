/**
 * The web transport: every registry operation is also served at /web + its path, for the site's
 * own pages. The caller is the browser's session (cookie clipd_session; an Authorization header
 * is ignored), the surface is "web" (runs.origin = web), and every state-changing call passes the
 * CSRF check first (csrf.ts). Web-only operations (registry `surfaces: ["web"]`) are mounted only
 * here. The handlers' cookie changes (WebCaller.set) are written onto the answer.
 */
import type { H3, H3Event } from "h3";
import { getQuery, getRouterParams } from "h3";
import type { Config } from "../../config/loader.js";
import { readJsonBody } from "../_body.js";
import { answerResponse } from "../_answer.js";
import type { Caller, WebCaller } from "../core/caller.js";
import type { Answer, OperationInput } from "../core/run-operation.js";
import { toErrorBody } from "../errors.js";
import type { Operation } from "../registry.js";
import type { FacadeServices } from "../services.js";
import { cookie, CSRF_COOKIE, readCookies, secureCookies, SESSION_COOKIE } from "./cookies.js";
import { checkCsrf, STATE_CHANGING } from "./csrf.js";

export const WEB_PREFIX = "/web";

/** The site's origin: server.public_url's when set, else the origin the request came to. */
export function siteOrigin(config: Config, req: Request): string {
  return config.server.public_url ? new URL(config.server.public_url).origin : new URL(req.url).origin;
}

/** The browser as the operation core sees it: its live session (looked up once) and CSRF cookie. */
async function webCaller(services: FacadeServices, req: Request): Promise<{ web: WebCaller; staleSession: boolean }> {
  const jar = readCookies(req.headers.get("cookie"));
  const token = jar.get(SESSION_COOKIE);
  const session = token ? await services.web.sessions.find(token) : undefined;
  return {
    web: {
      session,
      csrfCookie: jar.get(CSRF_COOKIE) || undefined,
      siteOrigin: siteOrigin(services.config, req),
      set: {},
    },
    staleSession: Boolean(token && !session),
  };
}

function writeCookies(headers: Headers, web: WebCaller, staleSession: boolean, secure: boolean): void {
  const s = web.set.session;
  if (s) headers.append("set-cookie", cookie(SESSION_COOKIE, s.token, { maxAgeSeconds: s.maxAgeSeconds, secure }));
  // A cookie whose session has ended (signed out elsewhere, expired) is cleared, so the browser stops sending it.
  else if (s === null || staleSession)
    headers.append("set-cookie", cookie(SESSION_COOKIE, "", { maxAgeSeconds: 0, secure }));
  if (web.set.csrf)
    headers.append("set-cookie", cookie(CSRF_COOKIE, web.set.csrf, { maxAgeSeconds: 30 * 86400, secure }));
}

type Run = (input: OperationInput, caller: Caller) => Promise<Answer>;

/** Mounts `op` at /web + its path. `callerOf` builds the transport's Caller as the API routes do. */
export function mountWebOperation(
  app: H3,
  op: Operation,
  run: Run,
  services: FacadeServices,
  callerOf: (event: H3Event) => Caller,
  maxJson: number,
): void {
  app.on(op.method, WEB_PREFIX + op.path.replace(/\{(\w+)\}/g, ":$1"), async (event: H3Event) => {
    const req = event.req;
    const { web, staleSession } = await webCaller(services, req);
    let answer: Answer | undefined;
    if (STATE_CHANGING.has(req.method)) {
      try {
        checkCsrf(req, web);
      } catch (err) {
        const { status, body } = toErrorBody(err);
        answer = { status, body, headers: new Headers({ "content-type": "application/json" }), bodyRead: false };
      }
    }
    answer ??= await run(
      {
        params: (getRouterParams(event) ?? {}) as Record<string, string>,
        query: getQuery(event) as Record<string, unknown>,
        readBody: () => readJsonBody(req, maxJson),
      },
      { ...callerOf(event), surface: "web", bearer: undefined, presentedCredentials: false, web },
    );
    if (!("raw" in answer)) {
      writeCookies(answer.headers, web, staleSession, secureCookies(services.config, req));
      answer.headers.set("cache-control", "no-store");
    }
    return answerResponse(req, answer);
  });
}
