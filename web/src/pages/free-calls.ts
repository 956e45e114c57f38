/**
 * The free page's calls and its saved key. Everything goes through api.ts under /web except a
 * link sent with a free key: the web transport's caller is the browser session and it ignores
 * Authorization, so that one call goes to the API's own path (/api/v1/transcribe, the same
 * operation, same origin) with the key as Bearer. The web-only free upload call reads the key
 * from Authorization itself, so it goes under /web with the header. The key is kept in this browser's localStorage
 * only when the visitor asks.
 */
import { ApiError, call } from "../api";
import type { FreeAccepted, FreePoll } from "../types";
import type { FreeRefusal } from "./free-refusals";

const STORE = "clipd.free_key";

export function savedFreeKey(): string | null {
  try {
    return localStorage.getItem(STORE);
  } catch {
    return null;
  }
}
export function saveFreeKey(key: string): void {
  try {
    localStorage.setItem(STORE, key);
  } catch {
    /* storage off: the visitor keeps the key by copying it */
  }
}
export function forgetFreeKey(): void {
  try {
    localStorage.removeItem(STORE);
  } catch {
    /* nothing kept */
  }
}

/** The poll token in a poll_url (…?token=…), or null. */
export function tokenOf(pollUrl: string): string | null {
  try {
    return new URL(pollUrl, window.location.origin).searchParams.get("token");
  } catch {
    return null;
  }
}

/** The page of a free result, from the 202's id and poll_url. */
export const resultPath = (a: FreeAccepted) =>
  `/free/${encodeURIComponent(a.id)}?token=${encodeURIComponent(tokenOf(a.poll_url) ?? "")}`;

export async function transcribeLink(url: string, key: string | null): Promise<FreeAccepted> {
  if (!key) return call<FreeAccepted>("POST", "/transcribe", { url });
  let res: Response;
  try {
    res = await fetch("/api/v1/transcribe", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ url }),
      credentials: "omit",
    });
  } catch {
    throw new ApiError(0, "network_error", "clipd could not be reached. Check your connection and try again.");
  }
  const body = (await res.json().catch(() => undefined)) as { error?: FreeRefusal } | FreeAccepted | undefined;
  if (res.ok) return body as FreeAccepted;
  const err = (body as { error?: FreeRefusal } | undefined)?.error;
  throw new ApiError(
    res.status,
    err?.code ?? `http_${res.status}`,
    err?.message ?? `clipd answered ${res.status}`,
    (err ?? {}) as Record<string, unknown>,
  );
}

/** An upload address for the free page; the free upload call reads a free key from Authorization itself. */
export const freeUpload = (fileName: string, key: string | null) =>
  call<FreeAccepted>("POST", "/free/uploads", { file_name: fileName }, key ? { authorization: `Bearer ${key}` } : {});
export const freeUploaded = (id: string) =>
  call<unknown>("POST", `/free/uploads/${encodeURIComponent(id)}/uploaded`, {});
export const pollFree = (id: string, token: string) =>
  call<FreePoll>("GET", `/transcribe/${encodeURIComponent(id)}?token=${encodeURIComponent(token)}`);

/** A thrown call as a refusal for freeRefusalText. */
export function refusalOf(err: unknown): FreeRefusal {
  if (err instanceof ApiError) return { ...err.details, code: err.code, message: err.message };
  return { code: "unknown", message: err instanceof Error ? err.message : String(err) };
}
