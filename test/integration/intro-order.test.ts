// Where a brand kit's intro card plays (issue 39, item 4), on real renders of a generated source:
// by default (intro.order hook_first) frame 0 is the clip's own picture with the hook box, the first
// second is the clip, and the card plays after the clip, before the outro; with card_first frame 0
// is the card. The poster is the clip's picture either way. Measured on extracted frames: the
// share of the kit's background colour: the cards' fill, and the hook box's.
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import type { BrandSnapshot, IntroOrder } from "../../daemon/render/brand.js";
import poster from "../../plugins/poster/index.js";
import { boxSource, frameAt, region, renderClip, share, type Rendered } from "../helpers/brand-render.js";
import { gallery } from "../helpers/gallery.js";
import { seconds } from "../helpers/pace-fixture.js";

const VIDEO = { duration: 5, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true };
const kit = (order: IntroOrder): BrandSnapshot => ({
  id: "ki",
  name: "Kit I",
  colours: { primary: "#ffffff", accent: "#ffd400", background: "#0f766e" },
  intro: { text: "Founding Speeches", seconds: 1.5, order },
  outro: { text: "Follow for more", seconds: 1 },
});
// The cards' fill, #0f766e, with room for the encoder.
const card = (r: number, g: number, b: number) =>
  Math.abs(r - 0x0f) < 20 && Math.abs(g - 0x76) < 20 && Math.abs(b - 0x6e) < 20;
// Below the hook box, which wears the kit's background colour too.
const lower = { left: 0, top: 0.25, width: 1, height: 0.75 };
const cardShare = async (png: Buffer) => share(await region(png, lower), card);
const done: Rendered[] = [];

afterAll(async () => {
  await Promise.all(done.map((r) => r.ctx.cleanup()));
});

async function posterOf(r: Rendered, brand: BrandSnapshot): Promise<Buffer> {
  const out = await poster.run({ ...r.input, render: r.render, brand }, { ...r.ctx, options: {} });
  return sharp(await r.ctx.storage.read(out.render.thumbnail_key))
    .png()
    .toBuffer();
}

describe("a brand kit's intro card", () => {
  it("plays after the clip by default, the hook opening over the picture, and first when asked", async () => {
    const render = async (order: IntroOrder) => {
      const brand = kit(order);
      const r = await renderClip({
        source: boxSource(),
        media: VIDEO,
        cut: { width: 360 },
        burn: { hook_title: true },
        brand,
      });
      done.push(r);
      return { r, brand, length: seconds(r.file) };
    };
    const hook = await render("hook_first");
    const first = await render("card_first");
    // The clip is 4 s; the cards add 1.5 and 1 s wherever the intro plays.
    for (const x of [hook, first]) expect(Math.abs(x.length - 6.5)).toBeLessThan(0.15);

    const frames = {
      hook0: frameAt(hook.r.file, 0),
      hookEnd: frameAt(hook.r.file, 4.7),
      first0: frameAt(first.r.file, 0),
      first2: frameAt(first.r.file, 2),
    };
    const posters = { hook: await posterOf(hook.r, hook.brand), first: await posterOf(first.r, first.brand) };
    await gallery("case-intro-order", [frames.hook0, frames.hookEnd, posters.hook, frames.first0, frames.first2]);
    // Hook first: frame 0 and the first second are the picture, with the hook box; the card comes
    // after the clip's 4 s.
    expect(await cardShare(frames.hook0)).toBeLessThan(0.05);
    expect(await cardShare(frameAt(hook.r.file, 0.9))).toBeLessThan(0.05);
    const hookBox = { left: 0.1, top: 0.06, width: 0.8, height: 0.12 };
    expect(share(await region(frames.hook0, hookBox), card)).toBeGreaterThan(0.1);
    expect(await cardShare(frames.hookEnd)).toBeGreaterThan(0.9);
    // Card first: frame 0 is the card, and the clip follows it.
    expect(await cardShare(frames.first0)).toBeGreaterThan(0.9);
    expect(await cardShare(frames.first2)).toBeLessThan(0.05);
    // The poster is the clip's picture in both.
    for (const p of Object.values(posters)) expect(await cardShare(p)).toBeLessThan(0.05);
  });
});
