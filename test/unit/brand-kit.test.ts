// A brand kit without a database: what a caller may set (applyInput's refusals name the field),
// the snapshot a run carries (only what is set), the font check's verdicts on real bytes, and
// brand_kit as a look field (null clears it, a change cuts again, jobs from before kits read none).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cutChanged, lookChanges, resolveLook, ClipLooks } from "../../daemon/account/clip-look.js";
import { checkFont } from "../../daemon/brand/files.js";
import { applyInput, toSnapshot, type KitRow } from "../../daemon/brand/kit-rows.js";
import { repoRoot } from "../helpers/cli.js";

const limits = { font_max_bytes: 4_000_000, image_max_bytes: 5_000_000, image_max_pixels: 40_000_000 };
const kit: KitRow = {
  id: "k1",
  account_id: "a1",
  name: "Show",
  colours: { primary: "#FFFFFF", accent: "#FFD400", background: "#111111" },
  font: null,
  logo: { corner: "top-right", size: 0.15, opacity: 0.9 },
  intro: null,
  outro: null,
  cover_key: null,
  show_name: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};

describe("brand kits", () => {
  it("takes colours in any case as #RRGGBB and refuses the rest by field", () => {
    expect(applyInput(kit, { colours: { accent: "#00aaff" } }).colours).toEqual({
      primary: "#FFFFFF",
      accent: "#00AAFF",
      background: "#111111",
    });
    const field = (input: Parameters<typeof applyInput>[1]) => {
      try {
        applyInput(kit, input);
      } catch (err: any) {
        return err.context.field;
      }
      return undefined;
    };
    expect(field({ colours: { primary: "white" } })).toBe("colours.primary");
    expect(field({ logo: { size: 0.41 } })).toBe("logo.size");
    expect(field({ intro: { text: "  ", seconds: 1 } })).toBe("intro.text");
    expect(field({ outro: { text: "Bye", seconds: 0.5 } })).toBe("outro.seconds");
    expect(applyInput(kit, { intro: { text: " Hello " } as any }).intro).toEqual({
      text: "Hello",
      seconds: 1.5,
      order: "hook_first",
    });
    const first = applyInput(kit, { intro: { text: "Hi", order: "card_first" } }).intro;
    expect(first).toEqual({ text: "Hi", seconds: 1.5, order: "card_first" });
    expect(field({ outro: { text: "Bye", order: "card_first" } as any })).toBe("outro.order");
  });

  it("snapshots only what is set", () => {
    expect(toSnapshot(kit)).toEqual({ id: "k1", name: "Show", colours: kit.colours });
    const full = toSnapshot({
      ...kit,
      font: { key: "brand/a1/k1/font-1.ttf", family: "DejaVu Sans", file_name: "x.ttf", bundled: true },
      logo: { ...kit.logo, key: "brand/a1/k1/logo-1.png" },
      cover_key: "c.png",
      show_name: "S",
    });
    expect(full).toMatchObject({
      font: { key: "brand/a1/k1/font-1.ttf", family: "DejaVu Sans", file_name: "x.ttf" },
      logo: { key: "brand/a1/k1/logo-1.png", corner: "top-right" },
      cover_key: "c.png",
      show_name: "S",
    });
    expect(full.font).not.toHaveProperty("bundled");
  });

  it("reads a real TrueType font's family and refuses other bytes by name", async () => {
    const ttf = readFileSync(path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf"));
    await expect(checkFont(ttf, limits)).resolves.toMatchObject({ family: "DejaVu Sans", ext: "ttf" });
    await expect(checkFont(Buffer.from("ttcf" + "\0".repeat(60)), limits)).rejects.toThrow(/collection \(TTC\)/);
    await expect(checkFont(Buffer.from("wOF2" + "\0".repeat(60)), limits)).rejects.toThrow(/WOFF2 web font/);
    await expect(checkFont(ttf, { ...limits, font_max_bytes: 1024 })).rejects.toThrow(
      /larger than the limit of 1024 bytes/,
    );
  });

  it("is a look field: null clears it, a change cuts again, and older looks read none", () => {
    const base = new ClipLooks().serviceLook();
    expect(base.brand_kit).toBeNull();
    const branded = resolveLook(base, { brand_kit: "k1" });
    expect(branded.brand_kit).toBe("k1");
    expect(resolveLook(branded, {}).brand_kit).toBe("k1");
    expect(resolveLook(branded, { brand_kit: null }).brand_kit).toBeNull();
    const changes = lookChanges(base, branded);
    expect(changes).toEqual([{ field: "brand_kit", from: null, to: "k1" }]);
    expect(cutChanged(changes)).toBe(true);
    const { brand_kit: _gone, ...older } = base;
    expect(lookChanges(base, resolveLook(older as typeof base, {}))).toEqual([]);
  });
});
