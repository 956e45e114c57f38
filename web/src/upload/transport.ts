/**
 * The two requests the uploader makes to a signed upload address: a PUT of one piece, through
 * XMLHttpRequest because fetch has no upload progress events, and a HEAD asking how many bytes
 * are stored. Neither goes through api.ts: the address is signed, so it needs no session, cookie
 * or CSRF token, and it answers raw bytes counts rather than the web API's calls.
 */

export interface PutAnswer {
  /** The HTTP status; 0 when the connection dropped without an answer. */
  status: number;
  /** The parsed JSON body, when there is one. */
  body: unknown;
}

export class UploadAborted extends Error {
  constructor() {
    super("upload cancelled");
    this.name = "UploadAborted";
  }
}

/** PUTs `body` to `url`. Resolves with the answer (status 0 on a dropped connection); rejects only when aborted. */
export function putPiece(
  url: string,
  headers: Record<string, string>,
  body: Blob,
  contentRange: string | null,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
): Promise<PutAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UploadAborted());
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    if (contentRange) xhr.setRequestHeader("Content-Range", contentRange);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    const stop = () => xhr.abort();
    signal.addEventListener("abort", stop, { once: true });
    const finish = (answer: PutAnswer | null) => {
      signal.removeEventListener("abort", stop);
      if (answer) resolve(answer);
      else reject(new UploadAborted());
    };
    xhr.onload = () => finish({ status: xhr.status, body: parseJson(xhr.responseText) });
    xhr.onerror = () => finish({ status: 0, body: undefined });
    xhr.ontimeout = () => finish({ status: 0, body: undefined });
    xhr.onabort = () => finish(null);
    xhr.send(body);
  });
}

/**
 * Asks the address how many bytes it holds (Upload-Offset). Answers the count, null when the
 * server cannot say (no answer, or no header: go on from the last known point), or a status to
 * stop on (the link expired or is refused).
 */
export async function storedOffset(
  url: string,
  signal: AbortSignal,
): Promise<{ offset: string | null } | { status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { method: "HEAD", cache: "no-store", credentials: "omit", signal });
  } catch {
    if (signal.aborted) throw new UploadAborted();
    return { offset: null };
  }
  if (res.ok) return { offset: res.headers.get("upload-offset") };
  // HEAD has no body; the status alone says the link is gone (410) or refused (403).
  if (res.status === 403 || res.status === 410) return { status: res.status, body: undefined };
  return { offset: null };
}

/** Waits `ms`, or rejects at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UploadAborted());
    const t = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(new UploadAborted());
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
