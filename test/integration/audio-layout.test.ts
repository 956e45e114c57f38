// The audio template's places (issue 39, item 2), on real renders of jfk.wav: an audio clip draws
// its title, a hook box, the waveform and a brand kit's show name and logo each in its own place,
// for typed hook words, the title as hook and no hook, with and without a kit, logo top-right or
// top-left, tall and wide. Measured on frames: while the typed hook shows it holds the waveform's
// band and no bar of the waveform is drawn; after it the waveform is there; the title's column is
// the same with and without the box; the logo's red is only inside the logo's own box; the poster
// is taken once the hook is gone, with the waveform and no box. The frames and posters are
// written to docs/screenshots/case-audio-layout-*.png.
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import poster from "../../plugins/poster/index.js";
import type { BrandSnapshot, LogoCorner } from "../../daemon/render/brand.js";
import { audioLayout, type Box } from "../../daemon/render/audio-template.js";
import { logoPlace } from "../../daemon/render/logo-place.js";
import { frameAt, region, renderClip, share, solidPng, type Rendered } from "../helpers/brand-render.js";
import { gallery } from "../helpers/gallery.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const kit = (corner: LogoCorner): BrandSnapshot => ({
  id: "ka",
  name: "Kit A",
  colours: { primary: "#ffffff", accent: "#ffd400", background: "#3b1f5c" },
  show_name: "Founding Speeches",
  logo: { key: "brand/logo.png", corner, size: 0.15, opacity: 1 },
});
const TITLE = "Ask not what your country can do for you";
const HOOK = "Five words that change everything";
const done: Rendered[] = [];
let scratch: TestStageCtx;
let logo = "";

async function posterOf(r: Rendered): Promise<Buffer> {
  const out = await poster.run({ ...r.input, render: r.render }, { ...r.ctx, options: {} });
  return sharp(await r.ctx.storage.read(out.render.thumbnail_key))
    .png()
    .toBuffer();
}

const frac = (b: Box, W: number, H: number) => ({ left: b.x / W, top: b.y / H, width: b.w / W, height: b.h / H });
const accent = (r: number, g: number, b: number) => r > 200 && g > 170 && b < 90;
const red = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const white = (r: number, g: number, b: number) => r > 220 && g > 220 && b > 220;
// The hook box: black at 0xD0 over the fill, darker than any of the templates' fills.
const boxDark = (r: number, g: number, b: number) => r < 14 && g < 14 && b < 14;
/** Share of a region's channel values that differ by more than 40 between two frames. */
const changed = (a: { data: Buffer }, b: { data: Buffer }) => {
  let n = 0;
  for (let i = 0; i < a.data.length; i++) if (Math.abs(a.data[i]! - b.data[i]!) > 40) n++;
  return n / a.data.length;
};

beforeAll(async () => {
  scratch = await makeStageCtx();
  logo = await solidPng(path.join(scratch.workdir, "logo.png"), "#ff0000", 200, 200);
});
afterAll(async () => {
  await Promise.all([scratch?.cleanup(), ...done.map((d) => d.ctx.cleanup())]);
});

describe("the audio template", () => {
  const cases = [
    { name: "typed hook, kit, logo top-right", aspect: "9:16", hook: HOOK, corner: "top-right" as LogoCorner },
    { name: "typed hook, no kit", aspect: "9:16", hook: HOOK },
    { name: "title as hook, kit", aspect: "9:16", hook: true, corner: "top-right" as LogoCorner },
    { name: "typed hook, kit, logo top-left, square", aspect: "1:1", hook: HOOK, corner: "top-left" as LogoCorner },
    { name: "typed hook, kit, logo top-right, wide", aspect: "16:9", hook: HOOK, corner: "top-right" as LogoCorner },
    { name: "no hook, no kit, 4:5", aspect: "4:5", hook: false },
  ];
  const panels: Record<string, Buffer[]> = { tall: [], wide: [] };

  for (const c of cases)
    it(`gives each element its place: ${c.name}`, async () => {
      const r = await renderClip({
        source: TEST_MEDIA.jfkWav,
        media: { duration: 11, kind: "audio", has_audio: true },
        cut: { width: 540, aspect_ratio: c.aspect },
        burn: { hook_title: c.hook },
        clip: { ref: "a1", number: 1, title: TITLE, start: 0, end: 4.5, pieces: [{ start: 0, end: 4.5 }] },
        ...(c.corner ? { brand: kit(c.corner), files: { "brand/logo.png": logo } } : {}),
      });
      done.push(r);
      const { width: W, height: H } = r.render as { width: number; height: number };
      const L = audioLayout(W, H, c.corner ? { corner: c.corner, size: 0.15 } : undefined);
      const during = frameAt(r.file, 1.2);
      const after = frameAt(r.file, 3.8);
      const cover = await posterOf(r);
      panels[c.aspect === "9:16" ? "tall" : "wide"]!.push(during, after, cover);
      // The waveform moves with the voice; a hook box stands still. Two frames 0.4 s apart: the
      // band changes after the hook, and not while it shows.
      const band = frac(L.wave, W, H);
      const moving = async (a: Buffer, b: Buffer) => changed(await region(a, band), await region(b, band));
      const typed = typeof c.hook === "string";
      expect(await moving(after, frameAt(r.file, 3.4)), "waveform after the hook").toBeGreaterThan(0.01);
      if (typed) {
        expect(await moving(during, frameAt(r.file, 0.8)), "waveform under the hook").toBeLessThan(0.001);
        expect(r.render.hook_until).toBe(3);
      }
      // The still's column (show name and title) is the same with the box up and after it.
      const text = await Promise.all([during, after].map((f) => region(f, frac(L.text, W, H))));
      expect(changed(text[0]!, text[1]!), "title column").toBeLessThan(0.002);
      if (c.corner) {
        // The logo's red only in the logo's box: not on the cover, the names or the waveform.
        const place = logoPlace(W, H, { corner: c.corner, size: 0.15 })!;
        const whole = await region(after, { left: 0, top: 0, width: 1, height: 1 });
        const inside = await region(after, frac(place, W, H));
        const redAll = share(whole, red) * whole.pixels;
        const redIn = share(inside, red) * inside.pixels;
        expect(redIn, "the logo").toBeGreaterThan(0.5 * place.w * place.w);
        expect(redAll - redIn, "logo red elsewhere").toBeLessThan(0.01 * place.w * place.w);
        const apart = (a: Box, b: Box) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
        expect(apart(L.cover, place) && apart(L.text, place) && apart(L.wave, place)).toBe(true);
      }
      // The poster: taken after the hook, the waveform's bars in the band and no box.
      const bars = await region(cover, band).then((g) => share(g, c.corner ? accent : white));
      expect(bars, "waveform on the poster").toBeGreaterThan(0.02);
      if (typed) expect(await region(cover, band).then((g) => share(g, boxDark)), "no hook box").toBeLessThan(0.02);
    });

  it("writes the gallery", async () => {
    await gallery("case-audio-layout-tall", panels.tall!);
    await gallery("case-audio-layout-wide", panels.wide!, 360);
    expect(panels.tall!.length + panels.wide!.length).toBe(cases.length * 3);
  });
});
