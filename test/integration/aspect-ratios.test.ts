// One short clip rendered in each shape (issue 19, "Done when"): the size by ffprobe, the captions
// in their band (bright text pixels where the same band is plain before the first word), and a
// red logo in its corner; then a kit's intro and outro cards (their colour in the first and last
// frames, the captions after the intro), and the audio template's waveform moving through speech.
// Frames of each go to docs/screenshots/ (aspect-*, brand-*, audio-*).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeMedia } from "../../daemon/render/render.js";
import { audioLayout } from "../../daemon/render/audio-template.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";
import {
  boxSource,
  frameAt,
  region,
  renderClip,
  screenshot,
  share,
  solidPng,
  type Rendered,
} from "../helpers/brand-render.js";

const VIDEO = { duration: 5, kind: "video", width: 640, height: 360, has_audio: true };
const KIT_A: BrandSnapshot = {
  id: "k1",
  name: "Kit A",
  colours: { primary: "#ffffff", accent: "#ffd400", background: "#0f172a" },
  logo: { key: "brand/logo-red.png", corner: "top-right", size: 0.15, opacity: 1 },
};
const bright = (r: number, g: number, b: number) => r > 200 && g > 180 && b > 150; // white or yellow caption text
const red = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const done: Rendered[] = [];
let logoFile = "";
let coverFile = "";

let scratch: TestStageCtx;

beforeAll(async () => {
  boxSource();
  scratch = await makeStageCtx();
  logoFile = await solidPng(path.join(scratch.workdir, "logo.png"), "#ff0000");
  coverFile = path.join(scratch.workdir, "cover.png");
  execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "mandelbrot=s=480x480", "-frames:v", "1", coverFile]);
});
afterAll(async () => {
  await Promise.all([scratch?.cleanup(), ...done.map((d) => d.ctx.cleanup())]);
});

describe("shapes", () => {
  // 4:5 shows the whole picture on grey with the hook box up, the others fill the frame.
  const cases = [
    { aspect: "9:16", size: [1080, 1920], cut: { fit: "fill" }, hook: false },
    { aspect: "1:1", size: [1080, 1080], cut: { fit: "fill" }, hook: false },
    { aspect: "4:5", size: [1080, 1350], cut: { fit: "whole", background: "#808080" }, hook: true },
    { aspect: "16:9", size: [1920, 1080], cut: { fit: "fill" }, hook: false },
  ] as const;
  for (const c of cases) {
    it(
      `renders ${c.aspect} at ${c.size.join("×")} with captions in their band ` + `and the logo in its corner`,
      async () => {
        const r = await renderClip({
          source: boxSource(),
          media: VIDEO,
          cut: { aspect_ratio: c.aspect, ...c.cut },
          burn: { hook_title: c.hook, hook_seconds: 2 },
          brand: KIT_A,
          files: { "brand/logo-red.png": logoFile },
        });
        done.push(r);
        const got = await probeMedia(r.file);
        expect([got.width, got.height]).toEqual(c.size);
        expect(got.duration).toBeCloseTo(4, 0);
        // Bottom captions sit above 0.8 of the height; the band is plain navy before the first word (1.0 s).
        const band = { left: 0.05, top: 0.6, width: 0.9, height: 0.22 };
        const before = share(await region(frameAt(r.file, 0.5), band), bright);
        const during = frameAt(r.file, 1.3);
        const shown = share(await region(during, band), bright);
        await screenshot(during, `aspect-${c.aspect.replace(":", "-")}`, c.size[0] > c.size[1] ? 720 : 405);
        if (c.aspect === "4:5") await screenshot(during, "brand-a", 405);
        expect(before).toBeLessThan(0.001);
        expect(shown).toBeGreaterThan(0.005);
        // The logo: 0.15 of the width, 2:1, 0.04 of the short side from the top-right corner.
        const [W, H] = c.size;
        const m = (Math.min(W, H) * 0.04) / W;
        const lw = 0.15;
        const lh = (0.075 * W) / H;
        const logo = share(
          await region(during, {
            left: 1 - m - lw + 0.01,
            top: (Math.min(W, H) * 0.04) / H + 0.005,
            width: lw - 0.02,
            height: lh - 0.01,
          }),
          red,
        );
        expect(logo).toBeGreaterThan(0.9);
        if (c.hook) {
          // The hook box (0.08 of the height from the top, in the kit's background colour) on the grey
          // above the picture, gone after its 2 s.
          const hookBand = { left: 0.2, top: 0.07, width: 0.6, height: 0.12 };
          const notGrey = (rr: number, g: number, b: number) =>
            Math.max(Math.abs(rr - 128), Math.abs(g - 128), Math.abs(b - 128)) > 40;
          expect(share(await region(during, hookBand), notGrey)).toBeGreaterThan(0.2);
          expect(share(await region(frameAt(r.file, 3.2), hookBand), notGrey)).toBeLessThan(0.01);
        }
      },
    );
  }
});

describe("brand cards", () => {
  it("joins the intro and outro cards around the clip, with the captions after the intro", async () => {
    const kit: BrandSnapshot = {
      id: "k2",
      name: "Kit B",
      colours: { primary: "#fff3e0", accent: "#ff5fa2", background: "#22aa55" },
      logo: { key: "brand/logo-red.png", corner: "bottom-left", size: 0.2, opacity: 0.8 },
      intro: { text: "The Garden Hour", seconds: 1, order: "card_first" },
      outro: { text: "Follow for more", seconds: 1.5 },
    };
    const r = await renderClip({
      source: boxSource(),
      media: VIDEO,
      cut: { aspect_ratio: "1:1", fit: "whole", background: "blur", width: 540 },
      burn: { caption_position: "lower" },
      brand: kit,
      files: { "brand/logo-red.png": logoFile },
    });
    done.push(r);
    const got = await probeMedia(r.file);
    expect([got.width, got.height]).toEqual([540, 540]);
    expect(got.duration).toBeCloseTo(6.5, 0);
    const green = (rr: number, g: number, b: number) =>
      Math.abs(rr - 0x22) < 20 && Math.abs(g - 0xaa) < 20 && Math.abs(b - 0x55) < 20;
    const whole = { left: 0, top: 0, width: 1, height: 1 };
    const intro = frameAt(r.file, 0.4);
    expect(share(await region(intro, whole), green)).toBeGreaterThan(0.8);
    expect(share(await region(frameAt(r.file, 6.1), whole), green)).toBeGreaterThan(0.8);
    // The clip's first word is at 1.0 s of the clip, so 2.0 s of the output; at 1.3 s no caption yet.
    const band = { left: 0.05, top: 0.5, width: 0.9, height: 0.22 };
    const light = (rr: number, g: number, b: number) => rr > 200 && g > 200 && b > 180;
    expect(share(await region(frameAt(r.file, 1.3), band), light)).toBeLessThan(0.001);
    const during = frameAt(r.file, 2.3);
    expect(share(await region(during, band), light)).toBeGreaterThan(0.005);
    await screenshot(intro, "brand-b-intro", 405);
    await screenshot(during, "brand-b", 405);
  });
});

describe("audio template", () => {
  it("draws the title, show name and a waveform that moves through speech", async () => {
    const kit: BrandSnapshot = {
      id: "k3",
      name: "Kit A",
      colours: { primary: "#ffffff", accent: "#ffd400", background: "#3b1f5c" },
      show_name: "Founding Speeches",
      logo: { key: "brand/logo-red.png", corner: "bottom-right", size: 0.12, opacity: 1 },
    };
    const words = [
      { text: "And", start: 0.3, end: 0.6 },
      { text: "so", start: 0.7, end: 1.0 },
      { text: "my", start: 1.1, end: 1.4 },
    ].map((w) => ({ ...w, confidence: 0.9 }));
    const clip = {
      ref: "a1",
      number: 1,
      title: "Ask not what your country can do for you",
      start: 0,
      end: 4,
      pieces: [{ start: 0, end: 4 }],
    };
    const media = { duration: 11, kind: "audio", has_audio: true };
    // 9:16 without cover art (the initial's tile), 16:9 with the kit's.
    for (const [aspect, cover] of [
      ["9:16", false],
      ["16:9", true],
    ] as const) {
      const logo = { "brand/logo-red.png": logoFile };
      const withCover = cover
        ? { brand: { ...kit, cover_key: "brand/cover.png" }, files: { ...logo, "brand/cover.png": coverFile } }
        : { brand: kit, files: logo };
      const r = await renderClip({
        source: TEST_MEDIA.jfkWav,
        media,
        cut: { aspect_ratio: aspect, width: 540 },
        words,
        clip,
        ...withCover,
      });
      done.push(r);
      const got = await probeMedia(r.file);
      const wave = audioLayout(got.width, got.height).wave;
      const box = {
        left: wave.x / got.width,
        top: wave.y / got.height,
        width: wave.w / got.width,
        height: wave.h / got.height,
      };
      const a = await region(frameAt(r.file, 1.2), box);
      const b = await region(frameAt(r.file, 2.2), box);
      const yellow = (rr: number, g: number, bb: number) => rr > 200 && g > 170 && bb < 90;
      // Bars in the accent colour fill a good part of the band, and they move between the two frames.
      expect(share(a, yellow)).toBeGreaterThan(0.05);
      let moved = 0;
      for (let i = 0; i < a.data.length; i += 3) if (Math.abs(a.data[i]! - b.data[i]!) > 60) moved++;
      expect(moved / a.pixels).toBeGreaterThan(0.02);
      // The logo drawn over the template too: red in its bottom-right box.
      const m = Math.min(got.width, got.height) * 0.04;
      const lw = 0.12 * got.width;
      const logoBox = {
        left: (got.width - m - lw * 0.9) / got.width,
        top: (got.height - m - lw * 0.45) / got.height,
        width: (lw * 0.8) / got.width,
        height: (lw * 0.4) / got.height,
      };
      expect(share(await region(frameAt(r.file, 1.2), logoBox), red)).toBeGreaterThan(0.9);
      await screenshot(frameAt(r.file, 1.2), `audio-${aspect.replace(":", "-")}`, aspect === "16:9" ? 720 : 405);
    }
  });

  it("shows the title once (on the still, no hook box repeating it) and keeps the hook box off the cover", async () => {
    const kit: BrandSnapshot = {
      id: "k4",
      name: "Kit A",
      colours: { primary: "#ffffff", accent: "#ffd400", background: "#3b1f5c" },
      show_name: "Founding Speeches",
      cover_key: "brand/cover.png",
    };
    const clip = {
      ref: "a2",
      number: 1,
      title: "Ask not what your country can do for you",
      start: 0,
      end: 3,
      pieces: [{ start: 0, end: 3 }],
    };
    const words = [{ text: "And", start: 0.3, end: 0.6, confidence: 0.9 }];
    const render = async (hook_title: boolean | string) => {
      const r = await renderClip({
        source: TEST_MEDIA.jfkWav,
        media: { duration: 11, kind: "audio", has_audio: true },
        cut: { aspect_ratio: "9:16", width: 540 },
        burn: { hook_title },
        words,
        clip,
        brand: kit,
        files: { "brand/cover.png": coverFile },
      });
      done.push(r);
      return r;
    };
    const none = await render(false);
    const title = await render(true);
    const own = await render("Five words nobody said");
    await screenshot(frameAt(title.file, 1), "audio-title-once", 405);
    await screenshot(frameAt(own.file, 1), "audio-own-hook", 405);
    const L = audioLayout(540, 960);
    const frac = (b: { x: number; y: number; w: number; h: number }) => ({
      left: b.x / 540,
      top: b.y / 960,
      width: b.w / 540,
      height: b.h / 960,
    });
    const changed = (a: { data: Buffer; pixels: number }, b: { data: Buffer }) => {
      let n = 0;
      for (let i = 0; i + 2 < a.data.length; i += 3)
        if (Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 60) n++;
      return n / a.pixels;
    };
    const whole = { left: 0, top: 0, width: 1, height: 1 };
    const at = (r: Rendered, box: Parameters<typeof region>[1]) => region(frameAt(r.file, 1), box);
    // hook_title: true draws nothing over the still: the frame is the one without a hook box.
    expect(changed(await at(title, whole), await at(none, whole))).toBeLessThan(0.005);
    // The export's own words are drawn, below the cover and the still's title, at the top of the waveform band.
    expect(changed(await at(own, frac(L.cover)), await at(none, frac(L.cover)))).toBeLessThan(0.005);
    const band = frac({ x: 0, y: L.wave.y, w: 540, h: Math.round(L.wave.h / 2) });
    expect(changed(await at(own, band), await at(none, band))).toBeGreaterThan(0.1);
  });
});
