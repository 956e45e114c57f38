// A failed run's error is what clients see (episode, job and transcript records, webhook payloads):
// a tool's stderr in a stage's message must reach them without server paths or extra lines, while
// the step's own record (ops only) keeps the full text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestApp, type TestApp } from "../helpers/app.js";

describe("a failed run's error for clients", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp("pglite");
  });
  afterAll(() => t?.close());

  it("drops server paths and ffmpeg's extra lines from run.error, and keeps them in the step record", async () => {
    const raw =
      "ffmpeg exited with code 1: [in#0 @ 0x55d1c2a3e0c0] Error opening input: " +
      "Invalid data found when processing input | /var/lib/clipd/work/r1/source.mp4: " +
      "Invalid data found when processing input";
    const run = await t.app.runner.startRun("t-fail", {}, { set: { "fail.message": raw } });
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("failed");
    expect(done.error).toMatchObject({
      code: "bad_input",
      message: "ffmpeg exited with code 1: Error opening input: Invalid data found when processing input",
    });
    expect(JSON.stringify(done.error)).not.toMatch(/\/var\/lib|0x55d1/);
    const step = done.steps.find((s) => s.stage === "fail")!;
    expect(step.errors!.at(-1)).toMatchObject({ message: raw });
  });
});
