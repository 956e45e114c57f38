/**
 * Loopback servers that SSRF vectors aim at, counting every TCP connection they accept (a TLS
 * handshake that never sends a request still counts): an https one on 127.0.0.1 and ::1 (same
 * port when ::1 lets us), a plain http one, and a redirector that answers /r/<n> with a 302 to the
 * n-th of a list of targets. Its certificate is the test CA's (test/helpers/https-server.ts).
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Server } from "node:net";
import { testTls } from "../helpers/https-server.js";

export interface Targets {
  ports: { https: number; http: number };
  /** Connections the targets accepted so far (the redirector's own are not counted). */
  hits(): number;
  /** url(n): one hop to the n-th target; url(n, 2): a chain, /c/n redirecting to /r/n first. */
  redirector: { origin: string; hits(): number; url(n: number, hops?: 1 | 2): string };
  caPath: string;
  close(): Promise<void>;
}

const listen = (s: Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    s.once("error", reject);
    s.listen(port, host, () => resolve((s.address() as AddressInfo).port));
  });

export async function startTargets(redirects: (ports: { https: number; http: number }) => string[]): Promise<Targets> {
  const tls = await testTls();
  let hits = 0;
  let redirectorHits = 0;
  const answer = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end("ID3 secret from a private address");
  const servers: Server[] = [];
  const make = (kind: "https" | "http", count: () => void, handler: http.RequestListener) => {
    const s =
      kind === "https" ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
    s.on("connection", count);
    servers.push(s);
    return s;
  };
  const httpsPort = await listen(
    make("https", () => hits++, answer),
    0,
    "127.0.0.1",
  );
  // [::1]:port vectors must hit something too; another process may hold the port on ::1.
  await listen(
    make("https", () => hits++, answer),
    httpsPort,
    "::1",
  ).catch(() => undefined);
  const httpPort = await listen(
    make("http", () => hits++, answer),
    0,
    "127.0.0.1",
  );
  const ports = { https: httpsPort, http: httpPort };
  const list = redirects(ports);
  const redirector = make(
    "https",
    () => redirectorHits++,
    (req, res) => {
      const [, hop, index] = /^\/([rc])\/(\d+)/.exec(req.url ?? "") ?? [];
      const n = Number(index ?? -1);
      if (!(n in list)) return void res.writeHead(404).end();
      res.writeHead(302, { location: hop === "c" ? `/r/${n}/a.mp3` : list[n]! }).end();
    },
  );
  const redirectorPort = await listen(redirector, 0, "127.0.0.1");
  const origin = `https://127.0.0.1:${redirectorPort}`;
  return {
    ports,
    hits: () => hits,
    redirector: {
      origin,
      hits: () => redirectorHits,
      url: (n, hops = 1) => `${origin}/${hops === 2 ? "c" : "r"}/${n}/a.mp3`,
    },
    caPath: tls.caPath,
    close: async () => {
      for (const s of servers) {
        (s as http.Server).closeAllConnections?.();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}
