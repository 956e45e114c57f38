/**
 * whisper.cpp ggml models: the official files, where they live (`<dataDir>/models/ggml-<name>.bin`),
 * and a download with a sha256 check. A model can also be given as a file path.
 * Only models whose sha256 we could confirm are listed; any other ggml file placed in the models
 * folder still works by name.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { abandonStream } from "../../../daemon/storage/storage.js";

/** The official host (config transcribe.model_host overrides it). */
export const MODEL_HOST = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

export interface ModelInfo {
  name: string;
  url: string;
  sha256: string;
  bytes: number;
}

const TABLE: Array<[name: string, bytes: number, sha256: string]> = [
  ["tiny", 77_691_713, "be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21"],
  ["tiny.en", 77_704_715, "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f"],
  ["base", 147_951_465, "60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe"],
  ["base.en", 147_964_211, "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002"],
  ["small", 487_601_967, "1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b"],
  ["small.en", 487_614_201, "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d"],
  ["large-v3-turbo", 1_624_555_275, "1fc70f774d38eb169993ac391eea357ef47c88757ef72ee5943879b7e8e2bc69"],
  ["large-v3", 3_095_033_483, "64d182b440b98d5203c4f9bd541544d84c605196c4f7b845dfa11fb23594d1e2"],
];

/** The official models, smallest first. */
export const MODELS: readonly ModelInfo[] = TABLE.map(([name, bytes, sha256]) => ({
  name,
  bytes,
  sha256,
  url: `${MODEL_HOST}/ggml-${name}.bin`,
}));

/**
 * Models that may be pulled but are not offered: the weightless test model (test/fixtures/models),
 * so the download, its checksum and its resume are tested against a local server.
 */
const UNLISTED: readonly ModelInfo[] = [
  {
    name: "for-tests-tiny.en",
    bytes: 586_836,
    sha256: "dd6b7796204a1cdf7164666423034e6e1a7a3e9f5c22327b4b7974c4584bd82d",
    url: `${MODEL_HOST}/ggml-for-tests-tiny.en.bin`,
  },
];
export const modelInfo = (name: string) => [...MODELS, ...UNLISTED].find((m) => m.name === name);

/** The download failed before any answer came (no route, refused, DNS, TLS): the host cannot be reached. */
export class ModelHostUnreachable extends Error {}

export interface PullOptions {
  signal?: AbortSignal;
  onProgress?: (bytes: number, total: number) => void;
  /** Base URL of the model files (config transcribe.model_host); the official host by default. */
  host?: string;
  /** CA certificates (PEM) to trust for the host instead of the system's (a mirror with its own CA). */
  ca?: string | Buffer;
}

/** Files smaller than this are test stubs (the weightless for-tests model), never a real model. */
const MIN_REAL_BYTES = 10 * 1024 * 1024;

export const modelsDir = (dataDir: string) => path.resolve(dataDir, "models");
export const modelPath = (name: string, dataDir: string) => path.join(modelsDir(dataDir), `ggml-${name}.bin`);

/** A name from the table or the models folder, or a path to a ggml file (contains a slash or ends in .bin). */
export async function resolveModelPath(nameOrPath: string, dataDir = "data"): Promise<string> {
  if (nameOrPath.includes("/") || nameOrPath.includes("\\") || nameOrPath.endsWith(".bin"))
    return path.resolve(nameOrPath);
  return modelPath(nameOrPath, dataDir);
}

export interface LocalModel {
  name: string;
  path: string;
  bytes: number;
  /** False for test stubs (names starting "for-tests" or files under 10 MiB). */
  real: boolean;
  official: boolean;
}

/** The ggml model files in `<dataDir>/models`. */
export async function listModels(dataDir = "data"): Promise<LocalModel[]> {
  let names: string[];
  try {
    names = await readdir(modelsDir(dataDir));
  } catch {
    return [];
  }
  const out: LocalModel[] = [];
  for (const file of names.sort()) {
    if (!file.endsWith(".bin")) continue;
    const full = path.join(modelsDir(dataDir), file);
    const st = await stat(full).catch(() => null);
    if (!st?.isFile()) continue;
    const name = file.replace(/^ggml-/, "").replace(/\.bin$/, "");
    out.push({
      name,
      path: full,
      bytes: st.size,
      real: !file.startsWith("for-tests") && st.size >= MIN_REAL_BYTES,
      official: MODELS.some((m) => m.name === name),
    });
  }
  return out;
}

/** Preference when `engine: auto` has no model named: the English base/small models suit CPUs best. */
const PREFERENCE = ["base.en", "small.en", "base", "small", "large-v3-turbo", "tiny.en", "tiny", "large-v3"];

/** The real model `auto` would use, or null when none is installed. */
export async function pickInstalledModel(dataDir = "data", wanted?: string): Promise<LocalModel | null> {
  const real = (await listModels(dataDir)).filter((m) => m.real);
  if (wanted) return real.find((m) => m.name === wanted) ?? null;
  const rank = (m: LocalModel) => {
    const i = PREFERENCE.indexOf(m.name);
    return i < 0 ? PREFERENCE.length : i;
  };
  return real.sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/**
 * Downloads a model to `<dataDir>/models/ggml-<name>.bin` through `<file>.part`, checking its
 * sha256 before the file takes its final name. An existing file with the right size is kept. A part
 * left by a broken download is resumed with an HTTP Range request (its bytes are hashed first);
 * a host that ignores the Range sends the whole file again. A wrong checksum removes the part.
 */
export async function pullModel(name: string, dataDir = "data", opts: PullOptions = {}): Promise<string> {
  const info = modelInfo(name);
  if (!info) throw new Error(`unknown whisper model "${name}"; known: ${MODELS.map((m) => m.name).join(", ")}`);
  const dest = modelPath(name, dataDir);
  const existing = await stat(dest).catch(() => null);
  if (existing?.size === info.bytes) return dest;
  await mkdir(path.dirname(dest), { recursive: true });
  const url = `${(opts.host ?? MODEL_HOST).replace(/\/+$/, "")}/ggml-${name}.bin`;
  const manual = `download ${url} yourself and put it at ${dest} (sha256 ${info.sha256})`;
  const part = dest + ".part";
  let have = (await stat(part).catch(() => null))?.size ?? 0;
  if (have >= info.bytes) {
    await rm(part, { force: true });
    have = 0;
  }
  let res: http.IncomingMessage;
  try {
    res = await _get(url, { ...opts, from: have });
  } catch (err) {
    throw new ModelHostUnreachable(`could not download whisper model ${name} (offline?): ${manual}`, { cause: err });
  }
  const resumed = have > 0 && res.statusCode === 206;
  if (res.statusCode !== 200 && !resumed) {
    res.resume();
    throw new Error(`downloading whisper model ${name} failed with HTTP ${res.statusCode}: ${manual}`);
  }
  const hash = createHash("sha256");
  let bytes = 0;
  if (resumed) {
    for await (const piece of createReadStream(part) as AsyncIterable<Buffer>) {
      hash.update(piece);
      bytes += piece.length;
    }
  }
  const out = createWriteStream(part, { flags: resumed ? "a" : "w" });
  try {
    for await (const piece of res as AsyncIterable<Buffer>) {
      hash.update(piece);
      bytes += piece.length;
      if (!out.write(piece)) await new Promise<void>((r) => out.once("drain", () => r()));
      opts.onProgress?.(bytes, info.bytes);
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    // A broken connection keeps the part: the next pull resumes it.
    await abandonStream(out);
    throw new Error(`the download of whisper model ${name} broke off at ${bytes} bytes; run the pull again to resume`, {
      cause: err,
    });
  }
  const digest = hash.digest("hex");
  if (digest !== info.sha256) {
    await rm(part, { force: true });
    throw new Error(`whisper model ${name} failed its checksum (got ${digest}, want ${info.sha256}); ${manual}`);
  }
  await rename(part, dest);
  return dest;
}

/** GET `url` from byte `from` on, following up to 5 redirects; resolves with the answer's headers read. */
async function _get(
  url: string,
  o: { from: number; ca?: string | Buffer; signal?: AbortSignal },
  hops = 0,
): Promise<http.IncomingMessage> {
  const target = new URL(url);
  const get = target.protocol === "https:" ? https.get : http.get;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = get(
      target,
      {
        headers: o.from > 0 ? { range: `bytes=${o.from}-` } : {},
        signal: o.signal,
        ...(o.ca ? { ca: o.ca } : {}),
      },
      resolve,
    );
    req.on("error", reject);
  });
  const location = res.headers.location;
  if ([301, 302, 303, 307, 308].includes(res.statusCode ?? 0) && location) {
    res.resume();
    if (hops >= 5) throw new Error(`${target.host} redirected more than 5 times`);
    return _get(new URL(location, target).toString(), o, hops + 1);
  }
  return res;
}
