/**
 * Parts of a chunked upload on an object store (the PartStore of storage-s3.ts). The layout
 * mirrors the disk's: objects `<key>.part/p<offset, 16 digits>`, `<key>.part/note`, and
 * `<key>.part/t<random>` while a part is being written. A part is written to its temporary object,
 * then copied to its place once the offset is free and the parts before it end there.
 *
 * What differs from the disk: placing is check-then-copy, not an atomic refuse-if-present (Ceph
 * RGW 16, the store the tests run on, answers every `If-None-Match: *` put with 412). Two writers
 * racing for one offset can therefore both land, the later one whole; both carry the same bytes
 * of the same file when clients behave, and the join reads each offset once. The same holds for
 * the note: the first writer's usually wins. docs/decisions.md records this.
 */
import { randomBytes } from "node:crypto";
import { Readable, PassThrough } from "node:stream";
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { contiguousEnd, PARTS_SUFFIX, type PartStore, type StoredPart } from "./storage-parts.js";
import type { Storage } from "./storage.js";

/** What the parts need of the S3 storage (storage-s3.ts), named here so the two do not import each other. */
type S3Base = Omit<Storage, "parts"> & {
  readonly client: S3Client;
  readonly bucket: string;
  objectKey(key: string): string;
};

const partName = (offset: number) => `p${String(offset).padStart(16, "0")}`;

export function defineS3Parts(storage: S3Base): PartStore {
  const dirOf = (key: string) => `${key}${PARTS_SUFFIX}`;
  const list = async (key: string): Promise<StoredPart[]> => {
    const prefix = `${storage.objectKey(dirOf(key))}/`;
    const parts: StoredPart[] = [];
    let token: string | undefined;
    do {
      const page = await storage.client.send(
        new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: `${prefix}p`, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        const name = o.Key!.slice(prefix.length);
        if (/^p\d{16}$/.test(name)) parts.push({ offset: Number(name.slice(1)), size: Number(o.Size ?? 0) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return parts.sort((a, b) => a.offset - b.offset);
  };
  return {
    list,
    async writer(key, offset) {
      const temp = `${dirOf(key)}/t${randomBytes(6).toString("hex")}`;
      const stream = await storage.writeStream(temp);
      return {
        stream,
        async commit() {
          const parts = await list(key);
          const free = !parts.some((p) => p.offset === offset);
          const fits = contiguousEnd(parts.filter((p) => p.offset < offset)) === offset;
          if (!free || !fits) {
            await storage.remove(temp);
            return false;
          }
          await storage.move(temp, `${dirOf(key)}/${partName(offset)}`);
          return true;
        },
        discard: () => storage.remove(temp),
      };
    },
    async join(key, to) {
      const parts = await list(key);
      const end = contiguousEnd(parts);
      // One multipart upload fed part after part, so the file lands whole or not at all.
      const body = new PassThrough();
      const out = await storage.writeStream(to);
      const piped = new Promise<void>((resolve, reject) => {
        out.on("finish", resolve).on("error", reject);
        body.on("error", reject);
      });
      body.pipe(out);
      try {
        for (const p of parts) {
          if (p.offset >= end) break;
          for await (const chunk of storage.readStream(`${dirOf(key)}/${partName(p.offset)}`) as Readable) {
            if (!body.write(chunk)) await new Promise((r) => body.once("drain", r));
          }
        }
        body.end();
        await piped;
      } catch (err) {
        body.destroy(err as Error);
        await piped.catch(() => undefined);
        throw err;
      }
    },
    async claimNote(key, text) {
      const note = `${dirOf(key)}/note`;
      if (await storage.exists(note)) return (await storage.read(note)).toString("utf8");
      await storage.write(note, text);
      return (await storage.read(note)).toString("utf8");
    },
    readNote: async (key) => {
      const note = `${dirOf(key)}/note`;
      return (await storage.exists(note)) ? (await storage.read(note)).toString("utf8") : undefined;
    },
    remove: (key) => storage.remove(dirOf(key)),
  };
}
