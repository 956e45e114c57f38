/**
 * The HTTP adapter: an h3 app (no listen here) whose routes come from the operation registry.
 * Each route turns the request into a Caller and an input, runs the operation through
 * core/run-operation.ts (auth, rate limit, validation, idempotency, handler, error envelope) and
 * writes the answer out. Nothing about an operation's rules lives here.
 */
import { metrics } from "../daemon/ops/metrics.js";
import { getQuery, getRequestIP, getRouterParams, H3, type H3Event } from "h3";
import { readJsonBody } from "./_body.js";
import { answerResponse } from "./_answer.js";
import { fallbackHandler } from "./_fallback.js";
import { bearerToken } from "./auth.js";
import { prepareOperation, type Caller, type Surface } from "./core/run-operation.js";
import { toErrorBody } from "./errors.js";
import { toOpenApi } from "./openapi.js";
import { healthz, readyz } from "./operations/health.js";
import { getMetrics } from "./operations/metrics.js";
import { getRun, startRun } from "./operations/runs.js";
import { adminCommand } from "./operations/admin.js";
import { ACCOUNT_OPERATIONS } from "./operations/account.js";
import { BRAND_OPERATIONS } from "./operations/brand-kits.js";
import { FILE_OPERATIONS } from "./operations/files.js";
import { mountUploadHead, UPLOAD_HEAD_ROUTE } from "./operations/upload-chunks.js";
import { TRANSCRIPT_OPERATIONS } from "./operations/transcripts.js";
import { WEBHOOK_OPERATIONS } from "./operations/webhooks.js";
import { FREE_OPERATIONS } from "./operations/free.js";
import { stripeWebhook } from "./operations/stripe-webhook.js";
import { OAUTH_OPERATIONS } from "./operations/oauth.js";
import { WEB_BILLING_OPERATIONS } from "./operations/web-billing.js";
import { mcpHttpHandler, MCP_PATH } from "./mcp/http.js";
import { createMcpCore } from "./mcp/server.js";
import { siteOr } from "./site.js";
import { servedOn, type Operation } from "./registry.js";
import { mountWebOperation, WEB_PREFIX } from "./web/transport.js";
import { WEB_OPERATIONS } from "./operations/web.js";
import type { FacadeServices } from "./services.js";

/** Default cap on a JSON request body (server.max_json_bytes). */
export const MAX_JSON_BYTES = 1024 * 1024;

export const OPERATIONS: Operation[] = [
  healthz,
  readyz,
  getMetrics,
  getRun,
  startRun,
  adminCommand,
  ...ACCOUNT_OPERATIONS,
  ...BRAND_OPERATIONS,
  ...TRANSCRIPT_OPERATIONS,
  ...FILE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...FREE_OPERATIONS,
  ...WEB_OPERATIONS,
  ...WEB_BILLING_OPERATIONS,
  stripeWebhook,
  // OAuth 2.1 for the tool server's remote connectors (facade/operations/oauth.ts).
  ...OAUTH_OPERATIONS,
];

/** Who sent an HTTP request, as the operation core needs to know it. */
export function httpCaller(event: H3Event, surface: Surface = "api"): Caller {
  const forwarded = event.req.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return {
    surface,
    bearer: bearerToken(event),
    presentedCredentials: event.req.headers.has("authorization"),
    clientAddr: getRequestIP(event) ?? "unknown",
    ...(forwarded ? { forwardedAddr: forwarded } : {}),
    linkOrigin: new URL(event.req.url).origin,
    idempotencyKey: event.req.headers.get("idempotency-key"),
    request: event.req,
  };
}

export function createFacade(services: FacadeServices, operations: Operation[] = OPERATIONS): H3 {
  const app = new H3({
    onError(error) {
      const { status, body } = toErrorBody(error);
      if (status >= 500) services.log.error({ err: error }, "request failed");
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    },
  });
  const maxJson: number = services.config.server.max_json_bytes ?? MAX_JSON_BYTES;
  const web = services.config.web.enabled;
  for (const op of operations) {
    const run = prepareOperation(op, services);
    // The website's transport (facade/web/): every operation again under /web, web-only ones only there.
    if (web && servedOn(op, "web")) mountWebOperation(app, op, run, services, httpCaller, maxJson);
    if (!servedOn(op, "api")) continue;
    app.on(op.method, op.path.replace(/\{(\w+)\}/g, ":$1"), async (event: H3Event) => {
      const started = performance.now();
      const answer = await run(
        {
          params: (getRouterParams(event) ?? {}) as Record<string, string>,
          query: getQuery(event) as Record<string, unknown>,
          readBody: () => readJsonBody(event.req, maxJson),
        },
        httpCaller(event),
      );
      // Time to the answer (a streamed file's body is not waited for); labelled by operation id, never the raw path.
      metrics.httpRequest(
        op.id,
        op.method,
        "raw" in answer ? answer.raw.status : answer.status,
        (performance.now() - started) / 1000,
      );
      return answerResponse(event.req, answer);
    });
  }
  // HEAD on an upload address says how far a chunked upload got (HTTP only, like the PUT itself).
  mountUploadHead(app, services);
  app.get("/openapi.json", () =>
    toOpenApi(operations, {
      version: services.version,
      serverUrl: services.config.server.public_url,
      maxJsonBytes: maxJson,
    }),
  );
  // The MCP tool server (facade/mcp/): the same operations as tools, for MCP clients.
  const mcp = mcpHttpHandler(createMcpCore(services, operations), services, maxJson);
  // Stateless: only POST answers; every other method (GET's stream, DELETE's session end, OPTIONS)
  // gets the fallback's 405 whose Allow says POST, so OPTIONS and Allow agree.
  app.on("POST", MCP_PATH, (event: H3Event) => mcp(event.req, httpCaller(event, "chat")));
  const apiRoutes = [
    ...operations.filter((op) => servedOn(op, "api")).map((op) => ({ method: op.method as string, path: op.path })),
    UPLOAD_HEAD_ROUTE,
  ];
  const webRoutes = web
    ? operations.filter((op) => servedOn(op, "web")).map((op) => ({ method: op.method, path: WEB_PREFIX + op.path }))
    : [];
  const routes = [
    ...apiRoutes,
    ...webRoutes,
    { method: "GET", path: "/openapi.json" },
    { method: "POST", path: MCP_PATH },
  ];
  // The website (facade/site.ts) answers GET/HEAD of paths no route owns; the rest gets the JSON fallback.
  app.all("/**", siteOr({ enabled: services.config.web.enabled }, routes, fallbackHandler(services, routes)));
  return app;
}
