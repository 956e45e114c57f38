// Slow and hostile peers (peers-core.ts), with short limits: a source trickling a byte a second
// fails source_timeout at timeout_seconds, an endless one too_big at max_bytes, neither leaving a
// partial file; webhook receivers that take 30 s, stall after their headers, answer 302 or send
// 100 MB each have their
// attempt recorded within webhooks.timeout_ms (no answer / 302 / 200 with 1 KB kept).
// bench/chaos/peers.ts runs the same with the shipped limits' kind of values.
import { describe, expect, it } from "vitest";
import { runPeers } from "./peers-core.js";

describe("slow and hostile peers", () => {
  it("cuts each off at its limit and records it", async () => {
    const r = await runPeers({
      maxBytes: 4 * 1024 * 1024,
      timeoutSeconds: 3,
      webhookTimeoutMs: 1500,
      slowHookMs: 30_000,
      hugeBytes: 100 * 1024 * 1024,
    });
    const trickle = r.sources.find((s) => s.peer === "trickle.mp3")!;
    expect(trickle).toMatchObject({ status: "failed", code: "source_timeout", partLeft: false });
    expect(trickle.message).toMatch(/longer than 3 s/);
    expect(trickle.ms).toBeGreaterThanOrEqual(3000);
    expect(trickle.ms).toBeLessThan(8000);
    const endless = r.sources.find((s) => s.peer === "endless.mp3")!;
    expect(endless).toMatchObject({ status: "failed", code: "too_big", partLeft: false });
    expect(endless.message).toMatch(/limit of 4194304 bytes/);

    const at = (hook: string) => r.attempts.filter((a) => a.hook === hook);
    expect(r.attempts).toHaveLength(8);
    for (const a of at("hook-slow")) {
      expect(a).toMatchObject({ status_code: null, error: "no answer within 1500 ms" });
      expect(a.latency_ms).toBeLessThan(3000);
    }
    // Headers in time, body never: the 200 is the answer (delivered), and the wait for the body is
    // cut by the same limit as the whole attempt.
    for (const a of at("hook-stall")) {
      expect(a, JSON.stringify(a)).toMatchObject({ status_code: 200, error: null });
      expect(a.latency_ms).toBeLessThan(3000);
    }
    for (const a of at("hook-302"))
      expect(a).toMatchObject({ status_code: 302, error: expect.stringMatching(/redirects are not followed/) });
    for (const a of at("hook-huge")) {
      expect(a).toMatchObject({ status_code: 200, error: null });
      expect(a.response_bytes).toBeLessThanOrEqual(1024);
      expect(a.latency_ms).toBeLessThan(1500);
    }
  }, 60_000);
});
