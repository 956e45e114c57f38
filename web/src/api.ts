/**
 * The one place the site talks to clipd: every call goes to /web/api/v1/… with the session cookie
 * (same-origin), JSON, and the CSRF token from GET /web/api/v1/session on anything that changes
 * state. A refusal's `{error:{code,message}}` comes back as a thrown ApiError carrying both.
 */
import { plainWords } from "./plain-words";
import type { Episode, Session } from "./types";

const BASE = "/web/api/v1";
let csrfToken = "";
let onSessionChanged: () => void = () => {};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * Called when an answer shows the session is not what this page thinks: a 401 (it ended elsewhere
 * or expired) or a 403 csrf_failed (another tab signed in or out, so the token changed). The app
 * reads the session again, which also fetches the token the next try needs.
 */
export function whenSessionChanges(fn: () => void): void {
  onSessionChanged = fn;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/** Calls whose 401 means a wrong password, not an ended session. */
const PASSWORD_CHECKS = new Set(["POST /signin", "POST /account/password", "DELETE /account"]);

/**
 * `extra` headers ride along: the free page's upload call takes a free key as Authorization. A
 * Blob body (a file the user picked: a brand kit's font, logo, cover) goes up as its raw bytes.
 */
export async function call<T>(
  method: Method,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extra, accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  const raw = body instanceof Blob;
  if (body !== undefined) headers["content-type"] = raw ? body.type || "application/octet-stream" : "application/json";
  let res: Response;
  try {
    res = await fetch(BASE + path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network_error", "clipd could not be reached. Check your connection and try again.");
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: handled below */
  }
  if (!res.ok) {
    const err = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    const e = new ApiError(
      res.status,
      err?.code ?? "http_" + res.status,
      err?.message ?? `clipd answered ${res.status} ${res.statusText}`.trim(),
      (err ?? {}) as Record<string, unknown>,
    );
    if ((res.status === 401 && !PASSWORD_CHECKS.has(`${method} ${path}`)) || e.code === "csrf_failed")
      onSessionChanged();
    throw e;
  }
  return parsed as T;
}

/** Reads the session and keeps its CSRF token for the calls that follow. */
export async function loadSession(): Promise<Session> {
  const s = await call<Session>("GET", "/session");
  csrfToken = s.csrf_token;
  return s;
}

/** The message to show for anything thrown by a call: a field refusal in the site's words (plain-words.ts). */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return plainWords(err.message);
  if (err instanceof Error) return err.message;
  return String(err);
}

// ---- the episode list and an episode's end (issue 30): typed, for the pages that want them ----

/** One page of the episode list, newest first; pass next_cursor back for the page after. */
export interface EpisodePage {
  episodes: Episode[];
  next_cursor: string | null;
  message?: string;
}

/** The account's episodes a page at a time (10 unless `limit` says 1 to 50). */
export function listEpisodes(opts: { cursor?: string; limit?: number } = {}): Promise<EpisodePage> {
  const q = new URLSearchParams();
  if (opts.cursor) q.set("cursor", opts.cursor);
  if (opts.limit !== undefined) q.set("limit", String(opts.limit));
  const qs = q.toString();
  return call<EpisodePage>("GET", `/episodes${qs ? `?${qs}` : ""}`);
}

/** Stops an episode still being made; nothing is charged when its clip search had not started. */
export function cancelEpisode(id: string): Promise<{ episode_id: string; status: string; charged_cents: number }> {
  return call("POST", `/episodes/${encodeURIComponent(id)}/cancel`);
}

/** Deletes an episode with its clips, jobs and stored files. */
export function deleteEpisode(id: string): Promise<{ episode_id: string; deleted: boolean }> {
  return call("DELETE", `/episodes/${encodeURIComponent(id)}`);
}
