/**
 * A brand file given by link rather than uploaded (cover art, a logo, a font): checked as every
 * user link is when the request is made (daemon/net/public-url.ts), then fetched through the SSRF
 * guard pinned to the checked address, reading at most `maxBytes` and giving up after a while.
 * Refusals are the caller's (`Refused`, naming the `url` query field).
 */
import { StageError } from "../engine/stage.js";
import { LimitReached, Refused } from "../domain/errors.js";
import { guardedFetch, netguardOptionsFromConfig } from "../net/guard.js";
import { checkPublicUrl, NetRefusal } from "../net/public-url.js";

/** A brand file is small: a link that takes longer than this to hand it over is given up. */
const FETCH_MS = 30_000;

export async function fetchBrandFile(
  raw: string,
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  o: { config: Readonly<Record<string, any>>; maxBytes: number; field: string },
): Promise<Buffer> {
  let url: URL;
  try {
    url = await checkPublicUrl(raw, { field: "url", purpose: "fetched", config: o.config });
  } catch (err) {
    // The link arrives as a query field of an upload call, not in a JSON body.
    if (err instanceof NetRefusal)
      throw new NetRefusal(err.code, err.message.replace('body field "url"', 'query field "url"'), err.context);
    throw err;
  }
  const guard = await netguardOptionsFromConfig(o.config);
  const signal = AbortSignal.timeout(FETCH_MS);
  const failed = (message: string, extra: Record<string, unknown> = {}) =>
    new Refused("fetch_failed", `query field "url": ${message}`, { context: { field: "url", ...extra } });
  try {
    const res = await guardedFetch(url, { ...guard, signal, idleTimeoutMs: 15_000, maxRedirects: 3 });
    if (res.status < 200 || res.status > 299) {
      res.response.destroy();
      throw failed(`the link answered HTTP ${res.status}`, { status: res.status });
    }
    const declared = Number(res.headers["content-length"] ?? NaN);
    const tooBig = () =>
      new LimitReached(
        "size",
        "too_big",
        `query field "url": the ${o.field} file is larger than the limit of ${o.maxBytes} bytes`,
        { context: { field: "url", max_bytes: o.maxBytes } },
      );
    if (Number.isFinite(declared) && declared > o.maxBytes) {
      res.response.destroy();
      throw tooBig();
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.response) {
      bytes += (chunk as Buffer).length;
      if (bytes > o.maxBytes) {
        res.response.destroy();
        throw tooBig();
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks, bytes);
  } catch (err) {
    if (err instanceof Refused || err instanceof LimitReached) throw err;
    if (signal.aborted) throw failed(`the file did not arrive within ${FETCH_MS / 1000} s`);
    if (err instanceof StageError) {
      const code = err.code === "forbidden_address" ? "forbidden_address" : "fetch_failed";
      throw new Refused(code, `query field "url": ${err.message}`, { context: { field: "url" } });
    }
    throw failed(`could not fetch the link (${(err as Error)?.message ?? err})`);
  }
}
