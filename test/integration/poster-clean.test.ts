// The poster of a planned clip is a clean cover: drawn from the picture without captions or the hook
// box (so its title shows once), with the brand's logo corner left to the logo and the title still
// near the top beside it, and never from a
// flash of a scene under a second. Real cut, caption-burn and poster stages over a generated source.
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import poster from "../../plugins/poster/index.js";
import { logoPlace } from "../../daemon/render/logo-place.js";
import { spokenMoment, steadyMoment } from "../../plugins/poster/frame.js";
import {
  boxSource,
  frameAt,
  region,
  renderClip,
  type Rendered,
  screenshot,
  share,
  solidPng,
} from "../helpers/brand-render.js";
import { makeStageCtx } from "../helpers/stage-ctx.js";

const VIDEO = { duration: 5, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true };
const light = (r: number, g: number, b: number) => r > 200 && g > 200 && b > 180;
const red = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const purple = (r: number, g: number, b: number) => Math.abs(r - 0x7c) < 30 && Math.abs(g - 0x3a) < 30 && b > 190;
const done: Rendered[] = [];
let logoFile = "";

async function posterOf(r: Rendered, brand?: BrandSnapshot): Promise<{ png: Buffer; info: Record<string, unknown> }> {
  const out = await poster.run(
    { ...r.input, render: r.render, ...(brand ? { brand } : {}) },
    { ...r.ctx, options: {} },
  );
  const png = await sharp(await r.ctx.storage.read(out.render.thumbnail_key))
    .png()
    .toBuffer();
  return { png, info: out.render.poster };
}

/** Rows (as fractions of the height) whose pixels are mostly the title band's colour. */
async function bandRows(png: Buffer, least = 0.2): Promise<number[]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const rows: number[] = [];
  for (let y = 0; y < info.height; y++) {
    let n = 0;
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * 3;
      if (purple(data[i]!, data[i + 1]!, data[i + 2]!)) n++;
    }
    if (n > info.width * least) rows.push(y / info.height);
  }
  return rows;
}

describe("clean posters", () => {
  beforeAll(async () => {
    const scratch = await makeStageCtx();
    logoFile = await solidPng(path.join(scratch.workdir, "logo.png"), "#ff0000");
  });
  afterAll(async () => {
    await Promise.all(done.map((r) => r.ctx.cleanup()));
  });

  it("draws the title once, over a frame with no captions or hook box", async () => {
    const kit: BrandSnapshot = {
      id: "k",
      name: "Kit",
      colours: { primary: "#ffffff", accent: "#f59e0b", background: "#7c3aed" },
    };
    const r = await renderClip({ source: boxSource(), media: VIDEO, cut: {}, burn: { hook_title: true }, brand: kit });
    done.push(r);
    const { png, info } = await posterOf(r, kit);
    expect(info).toMatchObject({ clean: true, title: "Shapes and brands in one pass" });
    // The render shows a caption at the poster's moment; the poster does not.
    const band = { left: 0.05, top: 0.6, width: 0.9, height: 0.25 };
    const at = Number(info.at);
    expect(share(await region(frameAt(r.file, at), band), light)).toBeGreaterThan(0.003);
    expect(share(await region(png, band), light)).toBeLessThan(0.001);
    // One band of the title's box colour, in one stretch of rows.
    const rows = await bandRows(png);
    expect(rows.length).toBeGreaterThan(0);
    const gaps = rows.slice(1).filter((y, i) => y - rows[i]! > 0.02);
    expect(gaps).toEqual([]);
    await screenshot(png, "poster-clean", 360);
  });

  it("leaves a top-corner logo alone: the title stays near the top, beside the logo", async () => {
    const kit: BrandSnapshot = {
      id: "k2",
      name: "Kit",
      colours: { primary: "#ffffff", accent: "#f59e0b", background: "#7c3aed" },
      logo: { key: "brand/logo-red.png", corner: "top-right", size: 0.2, opacity: 1 },
    };
    const r = await renderClip({
      source: boxSource(),
      media: VIDEO,
      cut: {},
      burn: { hook_title: true },
      brand: kit,
      files: { "brand/logo-red.png": logoFile },
    });
    done.push(r);
    const { png } = await posterOf(r, kit);
    const corner = { left: 0.75, top: 0.0, width: 0.25, height: 0.1 };
    expect(share(await region(png, corner), red)).toBeGreaterThan(0.05);
    // The band is near the top (not low in the frame, on a speaker's chin: issue 39), and none of
    // it is in the logo's box.
    const rows = await bandRows(png, 0.1);
    expect(rows.length).toBeGreaterThan(0);
    expect(Math.min(...rows)).toBeLessThan(0.15);
    expect(Math.max(...rows)).toBeLessThan(0.3);
    const { width: W = 0, height: H = 0 } = await sharp(png).metadata();
    const logo = logoPlace(W, H, kit.logo)!;
    const logoBox = { left: logo.x / W, top: logo.y / H, width: logo.w / W, height: logo.w / H };
    expect(share(await region(png, logoBox), purple)).toBeLessThan(0.01);
    await screenshot(png, "poster-logo", 360);
  });
});

describe("poster moments", () => {
  it("moves off a scene shorter than a second to the nearest steady one", () => {
    const scenes = [
      { start: 0, end: 2, x: 0.5, y: 0.5 },
      { start: 2, end: 2.4, x: 0.1, y: 0.5 },
      { start: 2.4, end: 6, x: 0.9, y: 0.5 },
    ];
    expect(steadyMoment(1.2, scenes, 6)).toBe(1.2);
    const moved = steadyMoment(2.2, scenes, 6);
    expect(moved >= 2.4 || moved < 2).toBe(true);
    expect(steadyMoment(2.2, undefined, 6)).toBe(2.2);
  });

  it("takes an audio clip's poster mid-word, with the caption line whole", () => {
    const words = [0, 1, 2, 3].map((i) => ({ start: 1 + i * 0.5, end: 1.4 + i * 0.5 }));
    expect(spokenMoment(words, 0.9, 10)).toBeCloseTo(2.2, 5);
    expect(spokenMoment([], 0.9, 10)).toBe(0.9);
  });
});
