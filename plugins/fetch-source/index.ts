/**
 * fetch-source: brings the episode's media into storage.
 *
 * Input is either `source_url` (a direct https link to an audio or video file) or `upload`
 * (`{ key, name }`, a file the facade already stored). Uploads are only checked. Links are
 * downloaded through the SSRF guard, streamed to `runs/<runId>/source.part` and renamed to
 * `runs/<runId>/source<ext>` when complete, so a retry simply starts over and a reader never sees
 * half a file. A link to a web page fails at once: both the Content-Type and the first bytes must
 * look like media, and the size cap holds whether or not the server announces a length.
 */
import { EPISODE_MAX_BYTES } from "../../daemon/domain/limits.js";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Type } from "@sinclair/typebox";
import {
  Defaulted,
  defineStage,
  resolveOptions,
  StageError,
  type StageContext,
  type StageOptions,
  type StageWith,
} from "../../daemon/engine/stage.js";
import { checkKey } from "../../daemon/storage/storage.js";
import { diskFullOr, isDiskFull } from "../../daemon/storage/disk-full.js";
import { describeUrl, guardedFetch, netguardOptionsFromConfig } from "../../daemon/net/guard.js";
import {
  classifyContentType,
  extensionForContentType,
  extensionOf,
  kindOfExtension,
  mediaTypeOf,
  sniffMedia,
  SNIFF_BYTES,
} from "../../daemon/domain/media-types.js";
import { nameFromResponse } from "./_names.js";

/** The `with:` options of fetch-source: the one place their limits, defaults and descriptions are written. */
export const FetchSourceOptionsSchema = Type.Object(
  {
    max_bytes: Defaulted(
      Type.Integer({ minimum: 1, description: "Largest file accepted, in bytes (4.5 GB)." }),
      EPISODE_MAX_BYTES,
    ),
    timeout_seconds: Defaulted(
      Type.Number({ exclusiveMinimum: 0, description: "Longest a download may take, in seconds." }),
      3600,
    ),
  },
  { additionalProperties: false },
);
type FetchSourceOptions = StageOptions<typeof FetchSourceOptionsSchema>;

export interface SourceFile {
  key: string;
  name: string;
  bytes: number;
  content_type?: string;
  url?: string;
}

export default defineStage<StageWith<typeof FetchSourceOptionsSchema>>({
  name: "fetch-source",
  provides: ["source"],
  summary: "Downloads the media behind a direct https link, or checks an uploaded file",
  options: FetchSourceOptionsSchema,
  async run(input, ctx) {
    const opts = resolveOptions(FetchSourceOptionsSchema, ctx.options);
    const hasUrl = input.source_url !== undefined && input.source_url !== null && input.source_url !== "";
    if (hasUrl && input.upload) throw new StageError("bad_input", "give either source_url or upload, not both");
    if (hasUrl) {
      if (typeof input.source_url !== "string") throw new StageError("bad_url", "source_url must be a string");
      return { source: await download(input.source_url, ctx, opts) };
    }
    if (input.upload) return { source: await checkUpload(input.upload, ctx, opts) };
    throw new StageError("bad_input", "the run has neither a source_url nor an upload");
  },
});

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
async function checkUpload(upload: any, ctx: StageContext<any>, opts: FetchSourceOptions): Promise<SourceFile> {
  if (typeof upload?.key !== "string" || !upload.key)
    throw new StageError("bad_input", "upload.key must be a storage key");
  const key: string = upload.key;
  const name = typeof upload.name === "string" && upload.name ? upload.name : key.split("/").pop()!;
  try {
    checkKey(key); // throws for keys that climb out of storage
  } catch (cause) {
    throw new StageError("bad_input", `upload.key "${key}" is not a valid storage key`, { cause });
  }
  const bytes = (await ctx.storage.exists(key)) ? await ctx.storage.size(key) : -1;
  if (bytes < 0)
    throw new StageError("not_found", `the uploaded file ${name} is missing from storage`, { details: { key } });
  if (bytes === 0) throw new StageError("unreadable", `the uploaded file ${name} is empty`, { details: { key } });
  if (bytes > opts.max_bytes) throw tooBig(name, bytes, opts.max_bytes);
  ctx.progress(100, "upload checked");
  return {
    key,
    name,
    bytes,
    ...(typeof upload.content_type === "string" ? { content_type: upload.content_type } : {}),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
async function download(sourceUrl: string, ctx: StageContext<any>, opts: FetchSourceOptions): Promise<SourceFile> {
  const guard = await netguardOptionsFromConfig(ctx.config);
  const timeoutMs = Math.round(opts.timeout_seconds * 1000);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const partKey = `runs/${ctx.runId}/source.part`;
  // Its own code: a source that trickles (or stalls) is told apart from one that broke off.
  const timedOut = (cause?: unknown) =>
    new StageError("source_timeout", `the download took longer than ${opts.timeout_seconds} s (timeout_seconds)`, {
      retryable: true,
      cause,
      details: { timeout_seconds: opts.timeout_seconds },
    });

  ctx.progress(0, "connecting");
  let res;
  try {
    res = await guardedFetch(sourceUrl, { ...guard, signal, headers: { accept: "audio/*, video/*, */*;q=0.5" } });
  } catch (err) {
    if (timeout.aborted && !ctx.signal.aborted) throw timedOut(err);
    throw err;
  }
  const where = describeUrl(res.url);
  const { response } = res;
  const contentType = response.headers["content-type"];
  if (res.status < 200 || res.status > 299) {
    response.destroy();
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new StageError("fetch_failed", `${where} answered ${res.status} ${response.statusMessage ?? ""}`.trim(), {
      retryable,
      details: { status: res.status },
    });
  }
  const declared = classifyContentType(contentType);
  if (declared === "other") {
    response.destroy();
    throw notMedia(where, mediaTypeOf(contentType));
  }
  const length = Number(response.headers["content-length"]);
  const total = Number.isFinite(length) && length >= 0 ? length : undefined;
  if (total !== undefined && total > opts.max_bytes) {
    response.destroy();
    throw tooBig(where, total, opts.max_bytes);
  }

  let sniffedExt: string | undefined;
  let bytes = 0;
  let head = Buffer.alloc(0);
  let lastReport = 0;
  // Counts bytes, enforces the cap, and holds back the first bytes until they have been sniffed.
  const gate = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      bytes += chunk.length;
      if (bytes > opts.max_bytes) return cb(tooBig(where, total, opts.max_bytes));
      if (head.length < SNIFF_BYTES && sniffedExt === undefined) {
        head = Buffer.concat([head, chunk]);
        if (head.length < SNIFF_BYTES) return cb();
        const verdict = judge(head);
        if (verdict instanceof StageError) return cb(verdict);
        chunk = head;
      }
      const now = Date.now();
      if (now - lastReport > 500) {
        lastReport = now;
        const pct = total ? Math.min(99, (bytes / total) * 100) : 0;
        ctx.progress(pct, `${(bytes / 1e6).toFixed(1)} MB downloaded`);
      }
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      if (sniffedExt !== undefined || head.length === 0) return cb();
      const verdict = judge(head);
      if (verdict instanceof StageError) return cb(verdict);
      cb(null, head);
    },
  });
  const judge = (first: Buffer): StageError | undefined => {
    const sniff = sniffMedia(first);
    if (sniff.kind === "html") return notMedia(where, "text/html");
    if (sniff.kind === "text")
      return notMedia(where, declared === "media" ? `text, though labelled ${mediaTypeOf(contentType)}` : "text");
    if (sniff.kind === "unknown" && declared !== "media")
      return notMedia(where, mediaTypeOf(contentType) || "no content type");
    sniffedExt = sniff.kind === "media" ? sniff.ext : "";
    return undefined;
  };

  try {
    const out = await ctx.storage.writeStream(partKey);
    await pipeline(response, gate, out, { signal });
  } catch (err) {
    response.destroy();
    await ctx.storage.remove(partKey).catch(() => undefined);
    if (err instanceof StageError) throw err;
    // Our disk, not the source: insufficient_storage, not a broken-off download to retry.
    if (isDiskFull(err)) throw diskFullOr(err, "the source file");
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) throw timedOut(err);
    throw new StageError("fetch_failed", `the download from ${where} broke off: ${(err as Error)?.message ?? err}`, {
      retryable: true,
      cause: err,
    });
  }
  if (total !== undefined && bytes < total) {
    await ctx.storage.remove(partKey).catch(() => undefined);
    throw new StageError("fetch_failed", `the download from ${where} ended after ${bytes} of ${total} bytes`, {
      retryable: true,
    });
  }
  if (bytes === 0) {
    await ctx.storage.remove(partKey).catch(() => undefined);
    throw new StageError("unreadable", `${where} returned an empty file`);
  }

  const urlExt = kindOfExtension(extensionOf(res.url.pathname)) ? extensionOf(res.url.pathname) : undefined;
  const ext = sniffedExt || urlExt || extensionForContentType(contentType) || ".bin";
  let name = nameFromResponse(res.url, response.headers["content-disposition"]) || `source${ext}`;
  // Later stages judge the file by its name's extension; give an unlabelled download the one its bytes showed.
  if (!kindOfExtension(name) && kindOfExtension(ext)) name += ext;
  const key = `runs/${ctx.runId}/source${ext}`;
  await ctx.storage.move(partKey, key);
  ctx.progress(100, `${(bytes / 1e6).toFixed(1)} MB downloaded`);
  ctx.log.info({ key, bytes, url: where }, "source downloaded");
  return { key, name, bytes, ...(contentType ? { content_type: contentType } : {}), url: sourceUrl };
}

function notMedia(where: string, got: string): StageError {
  return new StageError("unreadable", `${where} is not a direct link to a media file (got ${got})`, {
    details: { got },
  });
}

/** `bytes` undefined: the server gave no length and the download was cut at the limit. */
function tooBig(what: string, bytes: number | undefined, max: number): StageError {
  const gb = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GB`;
  const size = bytes !== undefined && bytes > max ? `${bytes} bytes (${gb(bytes)})` : "it went past the limit";
  return new StageError("too_big", `${what} is larger than the limit of ${max} bytes (${gb(max)}): ${size}`, {
    details: { max_bytes: max, ...(bytes !== undefined ? { bytes } : {}) },
  });
}
