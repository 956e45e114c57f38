/**
 * A real HTTPS server on 127.0.0.1 for tests that fetch user-given URLs.
 *
 * The certificate chain is made with `openssl` on first use (a test CA, and a server certificate
 * for localhost / media.clipd.test / 127.0.0.1 / ::1 signed by it) and cached under
 * <repo>/.cache/test-tls-v2. Trust it
 * with `guardedFetch(url, { ca: server.ca })`, or in a stage's config with
 * `{ network: { allow_loopback: true, extra_ca: server.caPath } }`.
 *
 *   const server = await startHttpsServer({ "/a.mp3": serveFile(TEST_MEDIA.jfkMp3, "audio/mpeg") });
 *   server.route("/page", (req, res) => res.end("<html>"));
 *   await guardedFetch(server.url("/a.mp3"), { allowLoopback: true, ca: server.ca });
 *   await server.close();
 */
import { execFile } from "node:child_process";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./media.js";

const exec = promisify(execFile);
// Bump the suffix when the certificate's names change, so a stale cached one is not used.
const TLS_DIR = path.join(REPO_ROOT, ".cache", "test-tls-v2");
/** A made-up name the certificate also covers, for tests that fake DNS answers. */
export const TEST_HOSTNAME = "media.clipd.test";

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface TestTls {
  /** PEM of the test CA, to trust. */
  ca: string;
  caPath: string;
  key: string;
  cert: string;
}

export interface TestHttpsServer {
  port: number;
  /** "https://127.0.0.1:<port>" */
  origin: string;
  /** Absolute URL for a path on this server; `host` "localhost" gives a name instead of an IP. */
  url(pathname: string, host?: "127.0.0.1" | "localhost"): string;
  /** Adds or replaces the handler for an exact path (query ignored). */
  route(pathname: string, handler: Handler): void;
  /** Every request path seen, in order. */
  requests: string[];
  ca: string;
  caPath: string;
  close(): Promise<void>;
}

/** The cached test CA and server certificate, made with openssl when missing. */
export async function testTls(): Promise<TestTls> {
  const caPath = path.join(TLS_DIR, "ca.pem");
  if (!existsSync(path.join(TLS_DIR, "server.pem"))) await makeTls();
  const [ca, key, cert] = await Promise.all(
    ["ca.pem", "server-key.pem", "server.pem"].map((f) => readFile(path.join(TLS_DIR, f), "utf8")),
  );
  return { ca: ca!, caPath, key: key!, cert: cert! };
}

async function makeTls(): Promise<void> {
  await mkdir(path.dirname(TLS_DIR), { recursive: true });
  const tmp = await mkdtemp(path.join(path.dirname(TLS_DIR), ".tls-"));
  const at = (f: string) => path.join(tmp, f);
  const openssl = (...args: string[]) => exec("openssl", args, { cwd: tmp });
  try {
    await openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "3650",
      "-subj",
      "/CN=clipd test CA",
      "-keyout",
      at("ca-key.pem"),
      "-out",
      at("ca.pem"),
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    await openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=localhost",
      "-keyout",
      at("server-key.pem"),
      "-out",
      at("server.csr"),
    );
    await writeFile(
      at("ext.cnf"),
      [
        "basicConstraints=CA:FALSE",
        "keyUsage=digitalSignature,keyEncipherment",
        "extendedKeyUsage=serverAuth",
        `subjectAltName=DNS:localhost,DNS:${TEST_HOSTNAME},IP:127.0.0.1,IP:::1`,
      ].join("\n"),
    );
    await openssl(
      "x509",
      "-req",
      "-in",
      at("server.csr"),
      "-CA",
      at("ca.pem"),
      "-CAkey",
      at("ca-key.pem"),
      "-CAcreateserial",
      "-days",
      "3650",
      "-sha256",
      "-extfile",
      at("ext.cnf"),
      "-out",
      at("server.pem"),
    );
    // Another test worker may have won the race; theirs is as good as ours.
    await rename(tmp, TLS_DIR).catch(() => undefined);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Starts the server with the given routes; unknown paths answer 404. */
export async function startHttpsServer(routes: Record<string, Handler> = {}): Promise<TestHttpsServer> {
  const tls = await testTls();
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const pathname = new URL(req.url ?? "/", "https://x").pathname;
    requests.push(pathname);
    const handler = table.get(pathname);
    if (!handler) {
      res.statusCode = 404;
      res.end("not found");
      return;
    }
    Promise.resolve(handler(req, res)).catch((err) => {
      if (!res.headersSent) res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `https://127.0.0.1:${port}`,
    url: (pathname, host = "127.0.0.1") => `https://${host}:${port}${pathname}`,
    route: (pathname, handler) => void table.set(pathname, handler),
    requests,
    ca: tls.ca,
    caPath: tls.caPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler that streams a file with the given Content-Type (and a Content-Length). */
export function serveFile(file: string, contentType: string, opts: { contentLength?: boolean } = {}): Handler {
  return async (_req, res) => {
    res.setHeader("content-type", contentType);
    if (opts.contentLength !== false) res.setHeader("content-length", (await stat(file)).size);
    createReadStream(file).pipe(res);
  };
}

/** A handler that redirects to `location` with `status` (default 302). */
export function redirectTo(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}
