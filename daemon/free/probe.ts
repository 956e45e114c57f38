/**
 * Reads a remote file's length before the free tool counts or spends anything: one GET for the
 * first `probeBytes` (a Range request), through the same SSRF guard as fetch-source. The length
 * comes from ffprobe on the whole file when it all arrived, else from its bitrate and the total
 * size the server told (Content-Range or Content-Length). A server that tells no size leaves the
 * file unmeasured.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ffprobeJson } from "../render/ffmpeg.js";
import { classifyContentType, sniffMedia } from "../domain/media-types.js";
import { guardedFetch, type GuardedFetchOptions } from "../net/guard.js";
import type { Storage } from "../storage/storage.js";

export interface Measure {
  /** False when the server told no size and the file did not fit in the probe. */
  measured: boolean;
  duration_seconds?: number;
  size_bytes?: number;
}

/** A refusal of the link itself (not a media file, or unreachable). */
export class ProbeRefusal extends Error {
  constructor(
    readonly code: "unreadable",
    message: string,
  ) {
    super(message);
    this.name = "ProbeRefusal";
  }
}

export async function measureRemote(
  url: string,
  opts: Pick<GuardedFetchOptions, "allowLoopback" | "ca"> & { probeBytes: number; timeoutMs?: number },
): Promise<Measure> {
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 20_000);
  const res = await guardedFetch(url, {
    allowLoopback: opts.allowLoopback,
    ca: opts.ca,
    signal,
    idleTimeoutMs: 15_000,
    headers: { range: `bytes=0-${opts.probeBytes - 1}` },
  });
  const status = res.status;
  if (status !== 200 && status !== 206) {
    res.response.destroy();
    throw new ProbeRefusal(
      "unreadable",
      `the link answered ${status}; it must be a direct link to an audio or video file`,
    );
  }
  const type = String(res.headers["content-type"] ?? "");
  if (classifyContentType(type) === "other") {
    res.response.destroy();
    throw new ProbeRefusal(
      "unreadable",
      `the link is not a direct link to a media file (it serves ${type.split(";")[0]})`,
    );
  }
  let total: number | undefined;
  const range = /\/(\d+)\s*$/.exec(String(res.headers["content-range"] ?? ""));
  if (status === 206 && range) total = Number(range[1]);
  else if (status === 200 && res.headers["content-length"] !== undefined) total = Number(res.headers["content-length"]);
  const { head, ended } = await readHead(res.response, opts.probeBytes, signal);
  if (ended && (total === undefined || status === 200)) total = head.length;
  const sniffed = sniffMedia(head);
  if (sniffed.kind === "html" || sniffed.kind === "text")
    throw new ProbeRefusal("unreadable", "the link serves a page or text, not a media file");
  const whole = total !== undefined && head.length >= total;
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-free-probe-"));
  try {
    const file = path.join(dir, `head${sniffed.kind === "media" ? sniffed.ext : ""}`);
    await writeFile(file, head);
    const probe = await ffprobeJson(file, { signal }).catch(() => undefined);
    const audio = probe?.streams.find((s) => s.codec_type === "audio");
    if (!probe || !audio) {
      if (sniffed.kind !== "media")
        throw new ProbeRefusal("unreadable", "the link does not serve an audio or video file that can be read");
      return { measured: false, size_bytes: total }; // a container whose index is at the end
    }
    if (whole) return { measured: true, duration_seconds: Number(probe.format.duration ?? 0), size_bytes: total };
    const bitrate = Number(audio.bit_rate ?? probe.format.bit_rate ?? 0);
    if (total === undefined || !(bitrate > 0)) return { measured: false, size_bytes: total };
    return { measured: true, duration_seconds: (total * 8) / bitrate, size_bytes: total };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Measures a stored file (an upload from the free page) with ffprobe on the whole of it. A file
 * that holds no audio stream is a ProbeRefusal; one whose length ffprobe cannot tell is unmeasured.
 */
export async function measureStored(storage: Storage, key: string): Promise<Measure> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-free-probe-"));
  try {
    const file = await storage.local(key, { workdir: dir });
    const size = await storage.size(key);
    const probe = await ffprobeJson(file.path, { signal: AbortSignal.timeout(60_000) }).catch(() => undefined);
    await file.release();
    if (!probe?.streams.some((s) => s.codec_type === "audio"))
      throw new ProbeRefusal(
        "unreadable",
        "the uploaded file is not an audio or video file that can be read, or it has no sound",
      );
    const seconds = Number(probe.format.duration ?? NaN);
    return Number.isFinite(seconds)
      ? { measured: true, duration_seconds: seconds, size_bytes: size }
      : { measured: false, size_bytes: size };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readHead(
  res: import("node:http").IncomingMessage,
  max: number,
  signal: AbortSignal,
): Promise<{ head: Buffer; ended: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = true;
  try {
    for await (const chunk of res.iterator({ destroyOnReturn: true }) as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) {
        ended = false;
        break;
      }
    }
  } finally {
    res.destroy();
  }
  const head = Buffer.concat(chunks);
  return { head: head.subarray(0, max), ended: ended && head.length <= max };
}
