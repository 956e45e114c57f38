// A webhook receiver for tests: a real https server on loopback (test CA) that verifies every
// delivery with the `standardwebhooks` package, as a customer's receiver would, and answers each
// path by a plan (status codes in order, the last one repeated).
import type { IncomingMessage } from "node:http";
import { Webhook } from "standardwebhooks";
import { startHttpsServer, type TestHttpsServer } from "./https-server.js";

export interface Receipt {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: Record<string, string>;
  /** Verified by standardwebhooks with the path's secret (false when no secret was set). */
  verified: boolean;
  error?: string;
  /** What the receiver answered. */
  answered: number | "hang";
}

export interface Receiver {
  server: TestHttpsServer;
  receipts: Receipt[];
  /** Adds a path answered by `plan` (default: 200 for everything); returns its https URL. */
  path(pathname: string, plan?: Array<number | "hang">, body?: string): string;
  secret(pathname: string, secret: string): void;
  close(): Promise<void>;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startReceiver(): Promise<Receiver> {
  const server = await startHttpsServer();
  const receipts: Receipt[] = [];
  const secrets = new Map<string, string>();
  return {
    server,
    receipts,
    path(pathname, plan = [200], answer = "ok") {
      let n = 0;
      server.route(pathname, async (req, res) => {
        const body = await readBody(req);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const r: Receipt = {
          path: pathname,
          id: headers["webhook-id"] ?? "",
          timestamp: headers["webhook-timestamp"] ?? "",
          signature: headers["webhook-signature"] ?? "",
          body,
          headers,
          verified: false,
          answered: plan[Math.min(n++, plan.length - 1)]!,
        };
        const secret = secrets.get(pathname);
        if (secret) {
          try {
            new Webhook(secret).verify(body, headers);
            r.verified = true;
          } catch (err) {
            r.error = (err as Error).message;
          }
        }
        receipts.push(r);
        if (r.answered === "hang") return; // never answers; the sender's timeout ends it
        res.statusCode = r.answered;
        res.end(answer);
      });
      return server.url(pathname);
    },
    secret(pathname, secret) {
      secrets.set(pathname, secret);
    },
    close: () => server.close(),
  };
}
