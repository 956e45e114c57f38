/**
 * Storage on any S3-compatible object store (AWS S3, Cloudflare R2, MinIO, Ceph RGW, Backblaze
 * B2), with the official AWS SDK: `@aws-sdk/client-s3` for single requests, `@aws-sdk/lib-storage`
 * for multipart uploads of anything large or streamed (parts go up concurrently, each retried by
 * the SDK). Keys map to objects under `prefix`; there are no folders, so removing a key also
 * removes every object under `<key>/`, as removing a folder does on disk.
 *
 * Files a tool needs as a path (ffmpeg, sharp) are downloaded into a private folder under the
 * step's workdir by `local()`; the runner removes the workdir when the step ends.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm, stat as fsStat } from "node:fs/promises";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { checkKey, StorageNotFoundError, type Storage } from "./storage.js";
import { defineS3Parts } from "./storage-s3-parts.js";

export interface S3Settings {
  bucket: string;
  /** Prepended to every key ("clipd/" keeps clipd's objects apart in a shared bucket). */
  prefix?: string;
  /** Empty: AWS. Otherwise the store's URL (http://127.0.0.1:7480, https://<account>.r2.cloudflarestorage.com). */
  endpoint?: string;
  region?: string;
  /** Path-style addressing (bucket in the path), which MinIO and Ceph RGW need; AWS takes either. */
  pathStyle?: boolean;
  /** Empty: the SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profiles, instance roles). */
  accessKeyId?: string;
  secretAccessKey?: string;
}

export type S3Storage = Storage & {
  readonly client: S3Client;
  readonly bucket: string;
  objectKey(key: string): string;
};

/** Objects larger than this go up in parts (lib-storage); smaller ones in one PUT. */
const PART_BYTES = 8 * 1024 * 1024;
/** CopyObject takes sources up to 5 GiB; a larger `move` streams through this process instead. */
const COPY_LIMIT = 5 * 1024 ** 3;

// biome-ignore lint/suspicious/noExplicitAny: S3 client errors: name and $metadata vary by call
const notFound = (err: any) =>
  err?.name === "NotFound" || err?.name === "NoSuchKey" || err?.$metadata?.httpStatusCode === 404;

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region || "us-east-1",
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    forcePathStyle: !!s.pathStyle,
    // Checksums only where the API requires them: the SDK's default streams bodies with a trailing
    // checksum (aws-chunked), which Ceph RGW 16 and other S3-compatible stores refuse (411).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(s.accessKeyId && s.secretAccessKey
      ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } }
      : {}),
  });
}

export function defineS3Storage(s: S3Settings): S3Storage {
  const client = s3Client(s);
  const Bucket = s.bucket;
  const prefix = s.prefix ? s.prefix.replace(/\/*$/, "/") : "";
  const objectKey = (key: string) => prefix + checkKey(key);

  const head = async (key: string) => {
    try {
      const h = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
      return { size: Number(h.ContentLength ?? 0), mtime: h.LastModified ?? new Date(0) };
    } catch (err) {
      if (notFound(err)) throw new StorageNotFoundError(key, { cause: err });
      throw err;
    }
  };
  const get = async (key: string, range?: string) => {
    try {
      return await client.send(
        new GetObjectCommand({ Bucket, Key: objectKey(key), ...(range ? { Range: range } : {}) }),
      );
    } catch (err) {
      if (notFound(err)) throw new StorageNotFoundError(key, { cause: err });
      throw err;
    }
  };
  /** Every object key under `p` (bounded pages of 1000; the loop ends when the listing does). */
  async function* list(p: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: p, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield o.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  const upload = (key: string, Body: Readable | Buffer | string) =>
    new Upload({
      client,
      params: { Bucket, Key: objectKey(key), Body },
      partSize: PART_BYTES,
      queueSize: 4,
      leavePartsOnError: false,
    }).done();

  const storage: S3Storage = {
    client,
    bucket: Bucket,
    objectKey,
    async exists(key) {
      try {
        await head(key);
        return true;
      } catch (err) {
        if (err instanceof StorageNotFoundError) return false;
        throw err;
      }
    },
    stat: head,
    size: async (key) => (await head(key)).size,
    async putFile(key, from, opts = {}) {
      const { size } = await fsStat(from);
      if (size <= PART_BYTES)
        await client.send(
          new PutObjectCommand({ Bucket, Key: objectKey(key), Body: createReadStream(from), ContentLength: size }),
        );
      else await upload(key, createReadStream(from));
      if (opts.move) await rm(from, { force: true });
      return key;
    },
    async move(from, to) {
      const { size } = await head(from);
      if (size <= COPY_LIMIT)
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key: objectKey(to),
            CopySource: encodeURIComponent(`${Bucket}/${objectKey(from)}`).replace(/%2F/g, "/"),
          }),
        );
      else await upload(to, (await get(from)).Body as Readable);
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(from) }));
      return to;
    },
    async write(key, data) {
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: data }));
      return key;
    },
    read: async (key) => Buffer.from(await (await get(key)).Body!.transformToByteArray()),
    async readHead(key, bytes) {
      if (bytes <= 0) return Buffer.alloc(0);
      try {
        return Buffer.from(await (await get(key, `bytes=0-${bytes - 1}`)).Body!.transformToByteArray());
      } catch (caught) {
        const err = caught as { $metadata?: { httpStatusCode?: number } };
        // An empty object has no byte 0: its head is empty.
        if (err?.$metadata?.httpStatusCode === 416) return Buffer.alloc(0);
        throw err;
      }
    },
    readStream(key, range) {
      objectKey(key); // a bad key throws here, at the call, as on disk
      const out = new PassThrough();
      get(key, range ? `bytes=${range.start}-${range.end}` : undefined).then(
        (r) => (r.Body as Readable).on("error", (e) => out.destroy(e)).pipe(out),
        (err) => out.destroy(err),
      );
      return out;
    },
    async writeStream(key) {
      // Bytes go up in parts as they arrive; 'finish' fires only once the object is complete.
      const body = new PassThrough();
      const done = upload(key, body);
      done.catch(() => undefined); // surfaced through final() below
      return new Writable({
        write: (chunk, enc, cb) => (body.write(chunk, enc) ? cb() : body.once("drain", () => cb())),
        final: (cb) => {
          body.end();
          done.then(() => cb(), cb);
        },
        destroy: (err, cb) => {
          body.destroy(err ?? new Error("write abandoned"));
          cb(err);
        },
      });
    },
    async local(key, opts) {
      const dir = path.join(opts.workdir, `.s3-${randomBytes(4).toString("hex")}`);
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, path.basename(checkKey(key)));
      try {
        const r = await get(key);
        await (opts.signal
          ? pipeline(r.Body as Readable, createWriteStream(file), { signal: opts.signal })
          : pipeline(r.Body as Readable, createWriteStream(file)));
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
      return { path: file, release: () => rm(dir, { recursive: true, force: true }) };
    },
    async remove(key) {
      const k = objectKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: k }));
      // What sits "under" the key, as a folder's files would; deleted 1000 at a time.
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length)
          await client.send(
            new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
          );
        batch = [];
      };
      for await (const o of list(`${k}/`)) if (batch.push(o) >= 1000) await flush();
      await flush();
    },
    parts: undefined as never,
    presignPut: (key, o) =>
      getSignedUrl(client, new PutObjectCommand({ Bucket, Key: objectKey(key), ContentType: o.type }), {
        expiresIn: Math.max(1, Math.floor(o.seconds)),
      }),
    async presignGet(key, o) {
      const cmd = new GetObjectCommand({
        Bucket,
        Key: objectKey(key),
        ResponseContentType: o.type,
        ResponseContentDisposition: o.disposition,
      });
      return getSignedUrl(client, cmd, { expiresIn: Math.max(1, Math.floor(o.seconds)) });
    },
  };
  (storage as { parts: Storage["parts"] }).parts = defineS3Parts(storage);
  return storage;
}
