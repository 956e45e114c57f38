/**
 * The answer for requests no operation route took: 405 with an Allow header when the path is
 * known under another method, else 404, both in the error envelope. Under /api/v1 these count
 * against the caller's rate limit like any other answer (the key's when it is valid, else the
 * client address) and carry the RateLimit-* headers.
 */
import type { H3Event } from "h3";
import { lingerOver, requestHasBody } from "./_body.js";
import { bearerToken, requireKey } from "./auth.js";
import { ApiError, toErrorBody } from "./errors.js";
import { applyRate, clientId } from "./ratelimit.js";
import type { FacadeServices } from "./services.js";

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** A regular expression matching the concrete paths of an OpenAPI path template. */
export function templatePattern(template: string): RegExp {
  const parts = template.split(/\{\w+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[^/]+")}$`);
}

type Route = { method: string; path: string };

/** The methods routed for a path (HEAD wherever GET is, as h3 routes it), in a fixed order. */
export function methodsFor(routes: ReadonlyArray<Route & { pattern?: RegExp }>, pathname: string): string[] {
  const found = new Set<string>();
  for (const r of routes) if ((r.pattern ?? templatePattern(r.path)).test(pathname)) found.add(r.method);
  if (found.has("GET")) found.add("HEAD");
  return METHOD_ORDER.filter((m) => found.has(m));
}

export const isApiPath = (pathname: string) => pathname === "/api/v1" || pathname.startsWith("/api/v1/");

export function fallbackHandler(services: FacadeServices, routes: ReadonlyArray<Route>) {
  const compiled = routes.map((r) => ({ ...r, pattern: templatePattern(r.path) }));
  return async (event: H3Event): Promise<Response> => {
    const { pathname } = new URL(event.req.url);
    const method = event.req.method;
    const headers = new Headers({ "content-type": "application/json" });
    // The body is never read here: close the connection rather than drain what is still coming.
    if (requestHasBody(event.req)) {
      headers.set("connection", "close");
      lingerOver(event.req);
    }
    try {
      if (isApiPath(pathname)) {
        const auth = await requireKey(bearerToken(event), services.accounts, null).catch(() => undefined);
        applyRate(services.rates, auth ? auth.key.id : clientId(event), headers);
      }
      const allow = methodsFor(compiled, pathname);
      if (allow.length) {
        headers.set("allow", allow.join(", "));
        throw new ApiError(
          405,
          "method_not_allowed",
          `${method} is not allowed on ${pathname}; it takes ${allow.join(", ")}`,
          { method, allow },
        );
      }
      throw new ApiError(404, "not_found", `no route for ${method} ${pathname}`);
    } catch (err) {
      const { status, body } = toErrorBody(err);
      if (status >= 500) services.log.error({ err }, "request failed");
      return new Response(JSON.stringify(body), { status, headers });
    }
  };
}
