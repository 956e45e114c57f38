/**
 * The website's files (docs/website.md): the single-page app built by Vite into dist/web/. GET and
 * HEAD requests that no API, MCP or operation route owns get the app: hashed files under /assets/
 * cached for a year (their names change with their content), index.html never cached and answered
 * for every other path so the app's own routes (/keys, /billing…) survive a reload. Top-level
 * files such as /robots.txt are served as they are (not cached long: their names carry no hash).
 * Everything else goes on to the JSON fallback (404/405 in the error envelope).
 */
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { H3Event } from "h3";
import { templatePattern } from "./_fallback.js";

/** Paths that are never the app's, whatever their method: their owners answer 404/405 in JSON. */
// /.well-known/ is for machines (OAuth and MCP discovery probe it): an unknown name is a JSON 404, never the app.
const RESERVED = /^\/(api|web\/api|mcp|\.well-known)(\/|$)|^\/(openapi\.json|healthz|readyz|metrics)$/;
const ASSET = /^\/assets\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;
/** /robots.txt and the like: a plain name with an extension, which no app route has. */
const TOP_FILE = /^\/([A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9]+)$/;
const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm", // libass for the clip editor's preview (JASSUB)
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};
const IMMUTABLE = "public, max-age=31536000, immutable";
// The app's own code only: its calls go to this origin, images may be data: URIs (the favicon).
// 'wasm-unsafe-eval' lets the clip editor compile libass (WebAssembly, JASSUB); it allows no eval().
// media-src blob: lets the new-episode page read a chosen file's length in a <video> before any
// upload (its price); a blob: URL is the page's own file, never another site's.
const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data:; media-src 'self' blob:; " +
    "object-src 'none'; base-uri " +
    "'none'; form-action 'self'; frame-ancestors 'none'",
};

/** dist/web of this checkout, whether this file runs from facade/ (tests) or dist/facade/. */
export function defaultSiteDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4 && !existsSync(path.join(dir, "package.json")); i++) dir = path.dirname(dir);
  return path.join(dir, "dist", "web");
}

type Handler = (event: H3Event) => Response | Promise<Response>;
export interface SiteOptions {
  enabled: boolean;
  /** The built app; defaultSiteDir() unless given (tests). */
  dir?: string;
}

/**
 * Wraps the fallback: the app for GET/HEAD of a path no route owns, `fallback` for the rest.
 * `routes` are the operation routes (templates), so that e.g. GET on a POST-only operation's path
 * still answers 405 rather than the app.
 */
export function siteOr(opts: SiteOptions, routes: ReadonlyArray<{ path: string }>, fallback: Handler): Handler {
  if (!opts.enabled) return fallback;
  const dir = opts.dir ?? defaultSiteDir();
  const owned = routes.map((r) => templatePattern(r.path));
  return (event) => {
    const method = event.req.method;
    const { pathname } = new URL(event.req.url);
    if ((method !== "GET" && method !== "HEAD") || RESERVED.test(pathname) || owned.some((p) => p.test(pathname)))
      return fallback(event);
    return serve(dir, pathname, event.req.headers.get("accept-encoding") ?? "", method === "HEAD");
  };
}

async function serve(dir: string, pathname: string, acceptEncoding: string, head: boolean): Promise<Response> {
  const asset = ASSET.exec(pathname);
  if (asset) return serveFile(path.join(dir, "assets", asset[1]!), IMMUTABLE, acceptEncoding, head, pathname);
  if (pathname.startsWith("/assets/")) return notFound(pathname);
  const top = TOP_FILE.exec(pathname);
  if (top && top[1] !== "index.html")
    return serveFile(path.join(dir, top[1]!), "no-cache", acceptEncoding, head, pathname);
  const html = await readFile(path.join(dir, "index.html")).catch(() => null);
  if (!html) return notBuilt();
  return new Response(head ? null : html, { status: 200, headers: HTML_HEADERS });
}

/** A built file, precompressed (.br, .gz beside it, written by the build) when the client takes it. */
async function serveFile(
  file: string,
  cacheControl: string,
  acceptEncoding: string,
  head: boolean,
  shown: string,
): Promise<Response> {
  const type = TYPES[path.extname(file)] ?? "application/octet-stream";
  const headers: Record<string, string> = {
    "content-type": type,
    "cache-control": cacheControl,
    "x-content-type-options": "nosniff",
    vary: "accept-encoding",
  };
  for (const [enc, ext] of [
    ["br", ".br"],
    ["gzip", ".gz"],
  ] as const) {
    if (!accepts(acceptEncoding, enc)) continue;
    const body = await readFile(file + ext).catch(() => null);
    if (body)
      return new Response(head ? null : body, { status: 200, headers: { ...headers, "content-encoding": enc } });
  }
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return notFound(shown);
  return new Response(head ? null : await readFile(file), { status: 200, headers });
}

function accepts(header: string, enc: string): boolean {
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().split(";");
    if (name?.trim().toLowerCase() !== enc) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  });
}

function notFound(pathname: string): Response {
  return new Response(`Not found: ${pathname}\n`, {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" },
  });
}

/** Said plainly, so an operator who skipped the build knows what to run. */
function notBuilt(): Response {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>clipd: website not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5">
<h1>The clipd website was not built</h1>
<p>This clipd serves its API, but the website's files (<code>dist/web/</code>) are missing.
Build them with <code>npm start</code> (which builds what is out of date) or
<code>node scripts/ensure-build.mjs</code>, then reload.</p>
<p>The API itself works: see <a href="/openapi.json">/openapi.json</a>.</p>
</body></html>\n`;
  return new Response(page, {
    status: 503,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
  });
}
