/**
 * Signed POSTs per Standard Webhooks: each attempt of the one courier (courier.ts), which delivers
 * account webhooks and the free tool's callbacks.
 *
 * Headers: webhook-id (the message id, the same on every retry), webhook-timestamp (seconds) and
 * webhook-signature (`v1,<base64 HMAC-SHA256>` of `id.timestamp.body`, one per secret,
 * space-separated). The address goes through the network guard at every attempt, so a private
 * target is refused and the connection goes to the checked address; redirects are not followed (a
 * 3xx is a failed attempt recorded with its status).
 * An attempt never throws: a refusal, a timeout or a non-2xx comes back as a failed result.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { guardedFetch, type GuardedFetchOptions } from "../net/guard.js";

/** `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The webhook-signature header: one `v1,<sig>` per secret, space-separated. */
export function signatureHeader(secrets: string[], msgId: string, timestamp: number, body: string): string {
  return secrets
    .map(
      (s) =>
        `v1,${createHmac("sha256", Buffer.from(s.replace(/^whsec_/, ""), "base64"))
          .update(`${msgId}.${timestamp}.${body}`)
          .digest("base64")}`,
    )
    .join(" ");
}

type NetOptions = Pick<GuardedFetchOptions, "allowLoopback" | "ca">;

export interface SignedPost {
  url: string;
  msgId: string;
  /** The JSON body, the same bytes on every attempt. */
  payload: string;
  /** Secrets that sign this attempt (more than one during a rotation). */
  secrets: string[];
  timeoutMs: number;
  userAgent: string;
  /** The network guard's settings (loopback in tests, extra CA); a promise is awaited inside the
   * attempt, so an unreadable CA file is a failed attempt with its reason, not a throw. */
  net: NetOptions | Promise<NetOptions>;
  /** How much of the answer to keep; 0 reads none. */
  responseBytes?: number;
}

export interface PostResult {
  ok: boolean;
  at: string;
  status_code: number | null;
  latency_ms: number;
  response: string | null;
  error: string | null;
}

/** One signed POST, timed; `error` says why an attempt failed. */
export async function postSigned(p: SignedPost): Promise<PostResult> {
  const at = new Date();
  const started = performance.now();
  const done = (status_code: number | null, response: string | null, error: string | null): PostResult => ({
    ok: error === null && status_code !== null && status_code >= 200 && status_code < 300,
    at: at.toISOString(),
    status_code,
    response,
    error,
    latency_ms: Math.round(performance.now() - started),
  });
  try {
    if (!p.url.startsWith("https://")) return done(null, null, "callback and webhook addresses must use https");
    const timestamp = Math.floor(at.getTime() / 1000);
    const res = await guardedFetch(p.url, {
      ...(await p.net),
      method: "POST",
      body: p.payload,
      maxRedirects: 0,
      idleTimeoutMs: p.timeoutMs,
      signal: AbortSignal.timeout(p.timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": p.userAgent,
        "webhook-id": p.msgId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(p.secrets, p.msgId, timestamp, p.payload),
      },
    });
    const left = Math.max(1, Math.round(p.timeoutMs - (performance.now() - started)));
    const text = await readSome(res.response, p.responseBytes ?? 0, AbortSignal.timeout(left));
    const ok = res.status >= 200 && res.status < 300;
    return done(
      res.status,
      text,
      ok
        ? null
        : `the address answered ${res.status}` +
            (res.status >= 300 && res.status < 400 ? " (redirects are not followed)" : ""),
    );
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    const timedOut = err?.name === "TimeoutError" || err?.name === "AbortError";
    const msg = timedOut ? `no answer within ${p.timeoutMs} ms` : (err?.message ?? String(err));
    return done(null, null, msg);
  }
}

/** Reads at most `max` bytes of a response (less if it stalls or breaks off), then drops the rest. */
async function readSome(res: IncomingMessage, max: number, signal: AbortSignal): Promise<string> {
  if (max <= 0) {
    res.resume();
    return "";
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.iterator({ destroyOnReturn: true }) as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) break;
    }
  } catch {
    // The status line is the receiver's answer; a body that stalls or breaks off after it only
    // shortens what is kept of the response, and the attempt keeps its status.
  } finally {
    res.destroy();
  }
  return Buffer.concat(chunks).subarray(0, max).toString("utf8");
}
