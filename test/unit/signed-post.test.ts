// A signed POST never throws: what stops an attempt comes back as a failed result with its reason,
// so a delivery or callback records the attempt and retries instead of leaving a claim behind.
import { describe, expect, it } from "vitest";
import { postSigned } from "../../daemon/delivery/signed-post.js";

const base = {
  msgId: "msg_1",
  payload: "{}",
  secrets: ["whsec_" + Buffer.alloc(32, 7).toString("base64")],
  timeoutMs: 2000,
  userAgent: "clipd-test",
};

describe("postSigned", () => {
  it("turns unreadable network settings (an extra CA file that is missing) into a failed attempt", async () => {
    const res = await postSigned({
      ...base,
      url: "https://127.0.0.1:9/hook",
      net: Promise.reject(new Error("ENOENT: no such file, open 'ca.pem'")),
    });
    expect(res).toMatchObject({ ok: false, status_code: null, error: expect.stringContaining("ca.pem") });
    expect(Date.parse(res.at)).not.toBeNaN();
  });

  it("refuses a plain-http address and a private one without sending", async () => {
    const plain = await postSigned({ ...base, url: "http://example.com/hook", net: { allowLoopback: false } });
    expect(plain).toMatchObject({ ok: false, error: expect.stringContaining("https") });
    const loop = await postSigned({ ...base, url: "https://127.0.0.1:9/hook", net: { allowLoopback: false } });
    expect(loop).toMatchObject({ ok: false, status_code: null });
    expect(loop.error).toMatch(/private|loopback|not allowed|refus/i);
  });
});
