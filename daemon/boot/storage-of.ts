import path from "node:path";
import type { Config } from "../../config/loader.js";
import { defineLocalStorage, type Storage } from "../storage/storage.js";
import { defineS3Storage } from "../storage/storage-s3.js";

/**
 * The media storage the config names: the data folder's storage/ (or `dir`), or an S3-compatible
 * object store. Every process of one service must name the same one.
 */
export function openStorage(config: Config, dir?: string): Storage {
  if (config.storage.kind !== "s3") return defineLocalStorage(dir ?? path.join(config.data_dir, "storage"));
  const s = config.storage.s3;
  if (!s.bucket) throw new Error("storage.kind is s3 but storage.s3.bucket is empty: name the bucket (it must exist)");
  return defineS3Storage({
    bucket: s.bucket,
    prefix: s.prefix,
    endpoint: s.endpoint || undefined,
    region: s.region || process.env.AWS_REGION || undefined,
    pathStyle: s.path_style,
    accessKeyId: s.access_key_id || undefined,
    secretAccessKey: s.secret_access_key || undefined,
  });
}
