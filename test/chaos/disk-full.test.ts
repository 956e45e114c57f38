// Disk full (disk-full-core.ts): storage/ and work/ on 20 MiB tmpfs mounts, filled up. An upload
// that does not fit is 507 insufficient_storage naming the limit, with no partial file kept; a paid
// export whose ffmpeg output does not fit fails with code insufficient_storage, leaves nothing
// behind and is refunded. With the space back, both succeed. Skipped where tmpfs cannot be mounted.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { filesUnder, openDiskWorld, paidExport, putUpload, tmpfsRefusal, type DiskWorld } from "./disk-full-core.js";

const refusal = await tmpfsRefusal();
if (refusal) console.warn(`disk-full suite skipped: ${refusal}`);

describe.skipIf(!!refusal)(
  `disk full (storage and work on 20 MiB tmpfs)${refusal ? `: skipped, ${refusal}` : ""}`,
  () => {
    let w: DiskWorld;
    let acc: { accountId: string; live: string };
    let mp3: Buffer;
    let media: TestHttpsServer;
    beforeAll(async () => {
      media = await startHttpsServer({ "/talk.mp3": serveFile(TEST_MEDIA.jfkMp3, "audio/mpeg") });
      w = await openDiskWorld(20, { network: { allow_loopback: true, extra_ca: media.caPath } });
      acc = await w.server.account({ creditCents: 100 });
      mp3 = await readFile(TEST_MEDIA.jfkMp3);
    }, 60_000);
    afterAll(async () => {
      await w?.close();
      await media?.close();
    });

    it("answers an upload that does not fit 507 insufficient_storage, keeps no " +
      "partial file, and takes it once there is room", async () => {
      await w.fill(w.storageDir, 2 * 1024 * 1024);
      const full = await putUpload(w, acc.live, 5 * 1024 * 1024, mp3);
      expect(full.status, JSON.stringify(full.body)).toBe(507);
      expect(full.body.error).toMatchObject({ code: "insufficient_storage", limit: "disk_space" });
      expect(full.body.error.message).toMatch(/no space left/);
      expect(full.leftover).toEqual([]);
      await w.free(w.storageDir);
      const ok = await putUpload(w, acc.live, 5 * 1024 * 1024, mp3);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.leftover.filter((f) => f.endsWith(".part"))).toEqual([]);
    }, 60_000);

    it("fails a paid export whose render does not fit with insufficient_storage, " +
      "leaves nothing, refunds it; renders once there is room", async () => {
      await w.fill(w.workDir, 64 * 1024);
      const failed = await paidExport(w, acc);
      expect(failed.job.status).toBe("failed");
      expect(failed.job.error).toMatchObject({ code: "insufficient_storage" });
      expect(failed.job.charged_cents).toBe(0);
      expect(failed.ledger).toEqual([
        ["export", -25],
        ["export_refund", 25],
      ]);
      expect(failed.leftover).toEqual([]);
      expect(failed.work).toEqual([]);
      await w.free(w.workDir);
      const done = await paidExport(w, acc);
      expect(done.job.status, JSON.stringify(done.job.error)).toBe("completed");
      expect(done.ledger).toEqual([["export", -25]]);
    }, 120_000);

    it("fails a transcript whose source download does not fit with insufficient_storage, " +
      "leaving no partial file", async () => {
      await w.fill(w.storageDir, 16 * 1024);
      const auth = { authorization: `Bearer ${acc.live}`, "content-type": "application/json" };
      const order = await fetch(`${w.server.base}/api/v1/transcripts`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: media.url("/talk.mp3") }),
      });
      const { id } = (await order.json()) as any;
      const t = await waitFor(
        async () => {
          const r = (await (await fetch(`${w.server.base}/api/v1/transcripts/${id}`, { headers: auth })).json()) as any;
          return ["failed", "completed"].includes(r.status) ? r : undefined;
        },
        { what: "the transcript to end", timeoutMs: 60_000, intervalMs: 100 },
      );
      await w.free(w.storageDir);
      expect(t).toMatchObject({ status: "failed", error: { code: "insufficient_storage" } });
      expect((await filesUnder(w.storageDir)).filter((f) => f.endsWith(".part"))).toEqual([]);
    }, 60_000);
  },
);
