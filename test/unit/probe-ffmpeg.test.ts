import { describe, expect, it } from "vitest";
import { ffprobeJson, parseFfmpegTime, runFfmpeg, ToolError } from "../../daemon/render/ffmpeg.js";
import { TEST_MEDIA } from "../helpers/media.js";

describe("_ffmpeg helpers", () => {
  it("parses ffmpeg's progress clock", () => {
    expect(parseFfmpegTime("size=  1kB time=00:01:02.50 bitrate=  0.1kbits/s speed=10x")).toBe(62.5);
    expect(parseFfmpegTime("time=-577014:32:22.77")).toBeUndefined();
    expect(parseFfmpegTime("no clock here")).toBeUndefined();
  });

  it("reports progress and stops the child when aborted", async () => {
    const ac = new AbortController();
    const times: number[] = [];
    const started = Date.now();
    const job = runFfmpeg(["-re", "-f", "lavfi", "-i", "sine=duration=60", "-f", "null", "-"], {
      signal: ac.signal,
      onTime: (t) => {
        times.push(t);
        if (t >= 0.5) ac.abort(new Error("cancelled"));
      },
    });
    await expect(job).rejects.toThrow("cancelled");
    expect(times.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("rejects with the tool's own reason", async () => {
    const err = await ffprobeJson("/nonexistent/file.mp4").then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect(err.message).toMatch(/No such file or directory/);
    expect((await ffprobeJson(TEST_MEDIA.jfkWav)).format.format_name).toBe("wav");
  });
});
