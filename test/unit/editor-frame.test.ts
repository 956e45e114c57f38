// The editor preview's cards follow the kit's intro order (issues 36 and 39): card first, the intro
// plays before the clip; hook first (the default), every second after the clip is one closing card,
// in the outro's words where the kit has an outro, else the intro's (it threw for an intro alone).
import { describe, expect, it } from "vitest";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { previewFrame } from "../../daemon/studio/editor-frame.js";
import type { Queryable } from "../../daemon/store/db.js";

const frameOf = (brand: Partial<BrandSnapshot>) =>
  previewFrame({
    // A video clip's frame reads nothing from the database.
    db: undefined as unknown as Queryable,
    episodeId: "00000000-0000-4000-8000-000000000000",
    brand: brand as BrandSnapshot,
    audio: false,
    width: 1080,
    height: 1920,
  });

describe("the editor preview's brand cards", () => {
  it("plays a card-first intro before the clip", async () => {
    const f = await frameOf({ intro: { text: "The Morning Show", seconds: 1.5, order: "card_first" } });
    expect(f).toMatchObject({ before: 1.5, after: 0 });
    expect(f.intro?.lines.join(" ")).toBe("The Morning Show");
    expect(f.outro).toBeUndefined();
  });

  it("closes with a hook-first intro alone, and with the outro's words when there is one", async () => {
    const alone = await frameOf({ intro: { text: "The Morning Show", seconds: 1.5 } });
    expect(alone).toMatchObject({ before: 0, after: 1.5 });
    expect(alone.outro?.lines.join(" ")).toBe("The Morning Show");
    const both = await frameOf({ intro: { text: "Hello", seconds: 1 }, outro: { text: "Goodbye", seconds: 2 } });
    expect(both).toMatchObject({ before: 0, after: 3 });
    expect(both.outro).toMatchObject({ seconds: 3, lines: ["Goodbye"] });
  });
});
