// A decode refused for the wall clock says so (issue 39): the decoder child is given a file that
// never arrives (a named pipe with no writer, so opening it waits without working), and the
// refusal names the wall-clock backstop, not processor time (the processor-time refusal of a file
// that keeps the child working is test/api/decode-bombs.test.ts's). Real children, real sharp, a
// real FIFO.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeUntrusted, WALL_FACTOR } from "../../daemon/render/decode-jail.js";
import { LimitReached } from "../../daemon/domain/errors.js";

describe("which decode limit fired", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a child left waiting is refused for wall-clock time, and says so", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "clipd-wall-"));
    const fifo = path.join(dir, "never.png");
    execFileSync("mkfifo", [fifo]);
    const limits = { deadline_ms: 500, memory_mb: 256 };
    const err = await decodeUntrusted(
      { op: "raster", path: fifo, pixels: 1_000_000, out: path.join(dir, "o.png") },
      "logo",
      limits,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LimitReached);
    const refusal = err as LimitReached & { context: Record<string, unknown> };
    expect(refusal.code).toBe("too_complex");
    expect(refusal.message).toMatch(/wall-clock time/);
    expect(refusal.message).not.toMatch(/s of processor time to open/);
    expect(refusal.context).toMatchObject({
      field: "logo",
      limit: "decode_seconds",
      clock: "wall",
      max: (500 * WALL_FACTOR) / 1000,
    });
  });
});
