// The website's resumable uploader (web/src/upload/plan.ts): which bytes go next and under which
// Content-Range, where to go on from after a drop (HEAD's Upload-Offset, a 409's offset), which
// answers are worth another try, the backoff, and the speed and time left beside the bar.
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  CHUNK_BYTES,
  formatBytes,
  formatTimeLeft,
  isChunked,
  judgeStatus,
  nextRange,
  offsetFrom,
  RateMeter,
  secondsLeft,
} from "../../web/src/upload/plan.js";

describe("upload pieces", () => {
  it("sends a file of one chunk or less whole, without Content-Range", () => {
    expect(nextRange(0, 1000, 1000)).toEqual({ start: 0, end: 1000, contentRange: null });
    expect(isChunked(1000, 1000)).toBe(false);
    expect(nextRange(1000, 1000, 1000)).toBeNull();
  });

  it("walks a larger file in chunks whose ranges are inclusive and name the total", () => {
    const ranges: string[] = [];
    for (let at = 0, r = nextRange(at, 25, 10); r; at = r.end, r = nextRange(at, 25, 10)) ranges.push(r.contentRange!);
    expect(ranges).toEqual(["bytes 0-9/25", "bytes 10-19/25", "bytes 20-24/25"]);
    expect(isChunked(25, 10)).toBe(true);
  });

  it("goes on from any offset the server reports, not only chunk boundaries", () => {
    expect(nextRange(7, 25, 10)).toEqual({ start: 7, end: 17, contentRange: "bytes 7-16/25" });
    expect(nextRange(24, 25, 10)).toEqual({ start: 24, end: 25, contentRange: "bytes 24-24/25" });
  });

  it("uses 8 MiB chunks by default and refuses a chunk size of zero", () => {
    expect(CHUNK_BYTES).toBe(8 * 1024 * 1024);
    expect(nextRange(0, 20 * 1024 * 1024)!.contentRange).toBe(`bytes 0-${CHUNK_BYTES - 1}/${20 * 1024 * 1024}`);
    expect(() => nextRange(0, 10, 0)).toThrow(RangeError);
  });
});

describe("where to go on from", () => {
  it("reads Upload-Offset, clamped to the total", () => {
    expect(offsetFrom("4194304", 10_000_000)).toBe(4194304);
    expect(offsetFrom(" 12 ", 100)).toBe(12);
    expect(offsetFrom("500", 100)).toBe(100);
    expect(offsetFrom("0", 100)).toBe(0);
  });

  it("reads a 409 upload_offset_mismatch body's offset", () => {
    expect(offsetFrom({ error: { offset: 30 } }, 100)).toBe(30);
  });

  it("answers null for what it cannot read, so the caller keeps its own count", () => {
    for (const bad of [
      null,
      undefined,
      "",
      "-1",
      "1e3",
      "abc",
      { error: {} },
      { error: { offset: -4 } },
      { error: { offset: 1.5 } },
    ])
      expect(offsetFrom(bad as never, 100)).toBeNull();
  });
});

describe("answers", () => {
  it(
    "goes on after 2xx, moves to the server's offset on a 409 mismatch, retries " +
      "drops and server trouble, stops on refusals",
    () => {
      expect(judgeStatus(200)).toBe("ok");
      expect(judgeStatus(409, "upload_offset_mismatch")).toBe("offset");
      for (const s of [0, 408, 429, 500, 502, 503, 507]) expect(judgeStatus(s)).toBe("retry");
      expect(judgeStatus(400, "upload_interrupted")).toBe("retry");
      for (const s of [400, 403, 404, 409, 410, 413, 415]) expect(judgeStatus(s)).toBe("fatal");
      expect(judgeStatus(409, "upload_total_changed")).toBe("fatal");
    },
  );

  it("waits 1 s doubling to at most 30 s between tries", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

describe("speed and time left", () => {
  it("says nothing until half a second of samples exists, then bytes a second over the recent window", () => {
    const m = new RateMeter(5000);
    m.add(0, 0);
    m.add(400, 400_000);
    expect(m.bytesPerSecond()).toBeNull();
    m.add(1000, 1_000_000);
    expect(m.bytesPerSecond()).toBe(1_000_000);
    // A stall shows once the fast samples leave the window.
    for (let t = 2000; t <= 12_000; t += 1000) m.add(t, 1_000_000);
    expect(m.bytesPerSecond()).toBe(0);
    m.reset();
    expect(m.bytesPerSecond()).toBeNull();
  });

  it("turns bytes left and speed into seconds and words", () => {
    expect(secondsLeft(0, 10_000_000, 1_000_000)).toBe(10);
    expect(secondsLeft(0, 10, null)).toBeNull();
    expect(secondsLeft(0, 10, 0)).toBeNull();
    expect(formatTimeLeft(null)).toBe("");
    expect(formatTimeLeft(0)).toBe("about 1 s left");
    expect(formatTimeLeft(125)).toBe("about 2 min 5 s left");
    expect(formatTimeLeft(3 * 3600 + 120)).toBe("about 3 h 2 min left");
    expect([999, 1500, 12_345_678, 4_500_000_000].map(formatBytes)).toEqual(["999 B", "1.5 kB", "12 MB", "4.5 GB"]);
  });
});
