// Giving up a file while a large write is still in the thread pool: the stream must close cleanly
// and leave no unhandled 'error' (an uploaded body refused mid-stream does exactly this).
import { once } from "node:events";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { abandonStream, defineLocalStorage, type Storage } from "../../daemon/storage/storage.js";

describe("abandonStream", () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "clipd-abandon-"));
    storage = defineLocalStorage(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Opens a stream and starts a write big enough to still be in flight on the next turn. */
  async function busyStream(key: string) {
    const out = await storage.writeStream(key);
    await once(out, "open");
    out.write(Buffer.alloc(64 * 1024 * 1024, 1));
    await new Promise((r) => setImmediate(r));
    return out;
  }

  it("closes a stream with a write in flight, without an error event, so the file can be removed", async () => {
    const out = await busyStream("a/part");
    const errors: unknown[] = [];
    const onUncaught = (err: unknown) => errors.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      // abandonStream resolves on 'close', the stream's last event: an 'error' would have come before it.
      await abandonStream(out);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
    expect(errors).toEqual([]);
    expect(out.closed).toBe(true);
    await storage.remove("a/part");
    await expect(stat(path.join(dir, "a/part"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 15_000);

  it("is what destroying would get wrong: destroy() mid-write emits ERR_STREAM_DESTROYED", async () => {
    const out = await busyStream("b/part");
    const failed = once(out, "error");
    out.destroy();
    const [err] = await failed;
    expect(err).toMatchObject({ code: "ERR_STREAM_DESTROYED" });
  });

  it("resolves at once for a stream already closed, and for one already ended", async () => {
    const done = await storage.writeStream("c/part");
    await new Promise<void>((r) => done.end(() => r()));
    await once(done, "close");
    await abandonStream(done);
    const ending = await storage.writeStream("d/part");
    ending.end("x");
    await abandonStream(ending);
    expect(ending.closed).toBe(true);
  });
});
