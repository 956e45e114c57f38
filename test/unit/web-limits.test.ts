// The website restates limits it cannot import from the daemon (the web bundle stands alone):
// these must stay equal to the daemon's, or the browser would refuse what the server takes.
import { describe, expect, it } from "vitest";
import { CLIP_SECONDS } from "../../daemon/account/clip-words.js";
import { EPISODE_MAX_BYTES, EPISODE_MAX_SECONDS } from "../../daemon/domain/limits.js";
import { MIN_CLIP_S } from "../../web/src/editor/model.js";
import { plainWords } from "../../web/src/plain-words.js";
import * as web from "../../web/src/upload/file-check.js";

describe("the website's restated limits", () => {
  it("match daemon/domain/limits.ts", () => {
    expect(web.EPISODE_MAX_BYTES).toBe(EPISODE_MAX_BYTES);
    expect(web.EPISODE_MAX_SECONDS).toBe(EPISODE_MAX_SECONDS);
    // The editor's trim handles stop where the server would refuse the clip as too short.
    expect(MIN_CLIP_S).toBe(CLIP_SECONDS.min);
  });
});

describe("refusals in a creator's words (web/src/plain-words.ts)", () => {
  it("rewrites the API's field form and leaves every other message alone", () => {
    expect(plainWords('body field "cues.1.text" must NOT have fewer than 1 characters')).toBe(
      "The words of a caption cannot be empty.",
    );
    expect(plainWords('body field "source_url" must be an absolute https:// URL')).toBe(
      "The link must start with https:// (a full link to the file).",
    );
    expect(plainWords('body field "about" must NOT have more than 500 characters')).toBe(
      "“Find clips about” can be at most 500 characters long.",
    );
    expect(
      plainWords('body field "brand_kit": no brand kit 42 on this account; list them with GET /api/v1/brand-kits'),
    ).toBe("The brand kit: No brand kit 42 on this account.");
    expect(
      plainWords('body field "brand_kit": no brand kit 7c728afa-88dc-451b-b0a7-ff3dbeaf634c on this account'),
    ).toBe("The brand kit: No brand kit on this account.");
    expect(plainWords('query field "q" must be string')).toBe("The q must be text.");
    expect(plainWords("body must NOT have fewer than 1 properties")).toBe("Nothing to save: change something first.");
    expect(plainWords("An episode needs credit: $0.25 is due.")).toBe("An episode needs credit: $0.25 is due.");
  });
});
