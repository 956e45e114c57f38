/**
 * whisper.cpp ggml models: the official files, where they live (`<dataDir>/models/ggml-<name>.bin`),
 * and a download with a sha256 check. A model can also be given as a file path.
 * Only models whose sha256 we could confirm are listed; any other ggml file placed in the models
 * folder still works by name.
 */
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import path from "node:path";
import { abandonStream } from "../../../daemon/storage/storage.js";

const BASE = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

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
  url: `${BASE}/ggml-${name}.bin`,
}));

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
 * Downloads an official model to `<dataDir>/models/ggml-<name>.bin`, checking its sha256 before
 * the file takes its final name. An existing file with the right size is kept.
 */
export async function pullModel(
  name: string,
  dataDir = "data",
  opts: { signal?: AbortSignal; onProgress?: (bytes: number, total: number) => void; fetch?: typeof fetch } = {},
): Promise<string> {
  const info = MODELS.find((m) => m.name === name);
  if (!info) throw new Error(`unknown whisper model "${name}"; known: ${MODELS.map((m) => m.name).join(", ")}`);
  const dest = modelPath(name, dataDir);
  const existing = await stat(dest).catch(() => null);
  if (existing?.size === info.bytes) return dest;
  await mkdir(path.dirname(dest), { recursive: true });
  const manual = `download ${info.url} yourself and put it at ${dest} (sha256 ${info.sha256})`;
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(info.url, { signal: opts.signal, redirect: "follow" });
  } catch (err) {
    throw new Error(`could not download whisper model ${name} (offline?): ${manual}`, { cause: err });
  }
  if (!res.ok || !res.body)
    throw new Error(`downloading whisper model ${name} failed with HTTP ${res.status}: ${manual}`);
  const part = dest + ".part";
  const hash = createHash("sha256");
  const out = createWriteStream(part);
  let bytes = 0;
  try {
    for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(piece);
      bytes += piece.length;
      if (!out.write(piece)) await new Promise<void>((r) => out.once("drain", () => r()));
      opts.onProgress?.(bytes, info.bytes);
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const digest = hash.digest("hex");
    if (digest !== info.sha256) {
      throw new Error(`whisper model ${name} failed its checksum (got ${digest}, want ${info.sha256}); ${manual}`);
    }
    await rename(part, dest);
    return dest;
  } catch (err) {
    await abandonStream(out);
    await rm(part, { force: true });
    throw err;
  }
}
