// The free page's words for every code of the free API's table (docs/free-api.md, "Limits and
// codes"), with the numbers each refusal carries; and the lengths, sizes and waits in words.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freeRefusalText, lengthWords, sizeWords, untilWords } from "../../web/src/pages/free-refusals.js";
import { repoRoot } from "../helpers/cli.js";

const NOW = Date.parse("2026-03-10T18:48:00Z");
const MIDNIGHT = "2026-03-11T00:00:00.000Z"; // 5 h 12 min after NOW
const NEXT_MONTH = "2026-04-01T00:00:00.000Z";

describe("free refusals in plain words", () => {
  it("gives the file's length and the tier's limit", () => {
    expect(freeRefusalText({ code: "too_long_anon", max_duration_seconds: 600, duration_seconds: 840 }, NOW)).toBe(
      "This file is 14 minutes long; the limit without a key is 10 minutes. A free key allows longer files.",
    );
    expect(freeRefusalText({ code: "too_long", max_duration_seconds: 5400, duration_seconds: 5730 }, NOW)).toBe(
      "This file is 1 hour 35 minutes long; the limit with a key is 1 hour 30 minutes.",
    );
    expect(
      freeRefusalText({ code: "too_long_anon", max_duration_seconds: 600, duration_seconds: 605.4 }, NOW),
    ).toContain("10 minutes 5 seconds long");
  });

  it("gives the file's size and the cap, or the cap alone when the size is unknown", () => {
    expect(freeRefusalText({ code: "too_big", max_bytes: 629145600, size_bytes: 734003200 }, NOW)).toBe(
      "This file is 734 MB; the largest file taken is 629 MB.",
    );
    expect(freeRefusalText({ code: "too_big", max_bytes: 629145600 }, NOW)).toBe(
      "This file is larger than 629 MB, the largest file taken.",
    );
  });

  it("says how many files a day and when more may be sent", () => {
    expect(freeRefusalText({ code: "anon_daily_limit", limit: 1, resets_at: MIDNIGHT }, NOW)).toBe(
      "Without a key, 1 file a day can be sent from one address, and this address " +
        "has used it. Try again in 5 hours 12 minutes, or create a free key for more.",
    );
    expect(freeRefusalText({ code: "daily_limit", limit: 2, resets_at: MIDNIGHT }, NOW)).toBe(
      "Your free key has used its 2 files for today. It can send more in 5 hours " +
        "12 minutes (days begin at midnight UTC).",
    );
    expect(freeRefusalText({ code: "unmeasured_limit", limit: 1, resets_at: MIDNIGHT }, NOW)).toContain(
      "only 1 such file a day can be taken",
    );
    expect(freeRefusalText({ code: "key_limit", limit: 3, resets_at: MIDNIGHT }, NOW)).toBe(
      "This e-mail address has been given 3 keys today, the most a day. Try again in 5 hours 12 minutes.",
    );
  });

  it("names the month's budget and when it opens again", () => {
    expect(freeRefusalText({ code: "ceiling", resets_at: NEXT_MONTH }, NOW)).toBe(
      "The free tool has spent this month's budget. It opens again in 21 days.",
    );
    expect(freeRefusalText({ code: "anon_ceiling", resets_at: NEXT_MONTH }, NOW)).toContain("A free key still works");
  });

  it("explains links, keys, silence, deletion, unknown results and floods", () => {
    expect(
      freeRefusalText({ code: "unreadable", message: "the link serves a page or text, not a media file" }, NOW),
    ).toBe(
      "That link does not lead straight to an audio or video file (the link serves " +
        "a page or text, not a media file). Link to the file itself, not to a page " +
        "that plays it.",
    );
    expect(freeRefusalText({ code: "bad_key" }, NOW)).toContain("free key was not accepted");
    expect(freeRefusalText({ code: "no_speech" }, NOW)).toBe(
      "No speech was heard in this recording, so there is no text.",
    );
    expect(freeRefusalText({ code: "expired" }, NOW)).toContain("has been deleted");
    expect(freeRefusalText({ code: "not_found" }, NOW)).toContain("No transcription was found");
    expect(freeRefusalText({ code: "rate_limited", retry_after: 12 }, NOW)).toBe(
      "Too many requests from this address. Wait 12 seconds and try again.",
    );
  });

  it("words every code of the published table, and falls back to the server's message as a sentence", () => {
    const doc = readFileSync(path.join(repoRoot, "docs", "free-api.md"), "utf8");
    const table = doc.slice(doc.indexOf("## Limits and codes"), doc.indexOf("Days are UTC days"));
    const codes = [...table.matchAll(/^\| ([a-z_]+) \|/gm)].map((m) => m[1]!).filter((c) => c !== "code");
    expect(codes.length).toBeGreaterThanOrEqual(11);
    // A code without its own words would come back as the server's bare message.
    for (const code of codes)
      expect(freeRefusalText({ code, message: "SERVER WORDS" }, NOW), code).not.toBe("SERVER WORDS.");
    expect(freeRefusalText({ code: "invalid_url", message: 'body field "url" must be https' }, NOW)).toBe(
      'Body field "url" must be https.',
    );
    expect(freeRefusalText({ code: "mystery" }, NOW)).toBe("The free transcription did not work (mystery).");
  });
});

describe("numbers in words", () => {
  it("lengths, sizes and waits", () => {
    expect([0, 1, 59, 60, 61, 3600, 3661, 7200].map(lengthWords)).toEqual([
      "0 seconds",
      "1 second",
      "59 seconds",
      "1 minute",
      "1 minute 1 second",
      "1 hour",
      "1 hour 1 minute",
      "2 hours",
    ]);
    expect([500, 1_500_000, 600_000_000, 1_250_000_000].map(sizeWords)).toEqual(["1 kB", "2 MB", "600 MB", "1.3 GB"]);
    expect(untilWords(new Date(NOW + 30_000).toISOString(), NOW)).toBe("in 1 minute");
    expect(untilWords(new Date(NOW + 2 * 3600_000).toISOString(), NOW)).toBe("in 2 hours");
    expect(untilWords("not a time", NOW)).toBe("later");
  });
});
