// The poster stage against real ffmpeg and sharp: over a short 360x640 clip whose picture changes
// colour each second, the poster is the frame at the hook's first word (not the clip's first
// frame), JPEG and WebP of the clip's size, with the title band in the brand kit's colours.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import poster from "../../plugins/poster/index.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const run = promisify(execFile);
const COLOURS = ["red", "green", "blue"] as const;

/** A 3 s 360x640 H.264 clip: red, then green, then blue, a second each. */
async function colourClip(dir: string): Promise<string> {
  const out = path.join(dir, "clip.mp4");
  const inputs = COLOURS.flatMap((c) => ["-f", "lavfi", "-i", `color=c=${c}:s=360x640:r=25:d=1`]);
  await run("ffmpeg", [
    "-v",
    "error",
    "-y",
    ...inputs,
    "-filter_complex",
    "[0:v][1:v][2:v]concat=n=3:v=1[v]",
    "-map",
    "[v]",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    out,
  ]);
  return out;
}

const brand: BrandSnapshot = {
  id: "kit-1",
  name: "Test kit",
  colours: { primary: "#FFFFFF", accent: "#F59E0B", background: "#7C3AED" },
};

describe("poster stage", () => {
  let ctx: TestStageCtx;
  afterEach(() => ctx?.cleanup());

  it("takes the frame at the hook's first word and draws the title in the brand's colours", async () => {
    ctx = await makeStageCtx({});
    await ctx.storage.putFile("runs/r/clip-a-captioned.mp4", await colourClip(ctx.workdir));
    // The clip opens on a filler; the hook ("Here is the point") starts in the green second.
    const words = [
      { text: "Um,", start: 0.1, end: 0.4 },
      ...["Here", "is", "the", "point."].map((text, i) => ({ text, start: 1.2 + i * 0.3, end: 1.45 + i * 0.3 })),
    ];
    await ctx.storage.write(
      "runs/r/clip-a.words.json",
      JSON.stringify({ ref: "a", title: "The point", hook: "Here is the point.", words }),
    );
    const out = await poster.run(
      {
        render: {
          key: "runs/r/clip-a-captioned.mp4",
          ref: "a",
          style: "clean",
          duration: 3,
          width: 360,
          height: 640,
          hook_title: false,
          thumbnail_key: "runs/r/clip-a-captioned.jpg",
          poster_webp_key: "runs/r/clip-a-captioned.webp",
        },
        cut: { words_key: "runs/r/clip-a.words.json", title: "The point", hook: "Here is the point." },
        brand,
      },
      ctx,
    );
    expect(out.render).toMatchObject({
      key: "runs/r/clip-a-captioned.mp4",
      thumbnail_key: "runs/r/clip-a-captioned.jpg",
      poster_webp_key: "runs/r/clip-a-captioned.webp",
    });
    expect(out.render.poster).toMatchObject({ at: 1.25, width: 360, height: 640, title: "The point", brand: "kit-1" });

    const jpeg = await ctx.storage.read(out.render.thumbnail_key);
    const webp = await ctx.storage.read(out.render.poster_webp_key);
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: "jpeg", width: 360, height: 640 });
    expect(await sharp(webp).metadata()).toMatchObject({ format: "webp", width: 360, height: 640 });
    const at = async (img: Buffer, x: number, y: number) => [
      ...(await sharp(img).extract({ left: x, top: y, width: 1, height: 1 }).raw().toBuffer()),
    ];
    const near = (got: number[], want: number[], tol = 40) => got.every((v, i) => Math.abs(v - want[i]!) <= tol);
    // Below the band: the green second's picture (the hook's first word), not the red opening.
    expect(near(await at(jpeg, 180, 500), [0, 128, 0]), String(await at(jpeg, 180, 500))).toBe(true);
    // In the band, beside the text: the kit's background colour.
    const band = await sharp(jpeg).extract({ left: 0, top: 45, width: 360, height: 90 }).raw().toBuffer();
    let purple = 0;
    for (let i = 0; i < band.length; i += 3)
      if (near([band[i]!, band[i + 1]!, band[i + 2]!], [0x7c, 0x3a, 0xed], 30)) purple++;
    expect(purple).toBeGreaterThan(500);
  });

  it("leaves off a title the render dropped for its unsure words", async () => {
    ctx = await makeStageCtx({});
    await ctx.storage.putFile("runs/r/clip-c-captioned.mp4", await colourClip(ctx.workdir));
    const words = ["Here", "is", "the", "point."].map((text, i) => ({
      text,
      start: 1.2 + i * 0.3,
      end: 1.45 + i * 0.3,
    }));
    await ctx.storage.write(
      "runs/r/clip-c.words.json",
      JSON.stringify({ ref: "c", title: "The point", hook: "Here is the point.", words }),
    );
    const render = {
      key: "runs/r/clip-c-captioned.mp4",
      ref: "c",
      style: "clean",
      duration: 3,
      width: 360,
      height: 640,
      thumbnail_key: "runs/r/clip-c.jpg",
      poster_webp_key: "runs/r/clip-c.webp",
    };
    const cut = { words_key: "runs/r/clip-c.words.json", title: "The point", hook: "Here is the point." };
    const kept = await poster.run({ render: { ...render, hook_title: false }, cut, brand }, ctx);
    expect(kept.render.poster.title).toBe("The point");
    const off = "the title's words were heard with low confidence";
    const out = await poster.run({ render: { ...render, hook_title: true, hook_title_off: off }, cut, brand }, ctx);
    expect(out.render.poster.title).toBeNull();
    // No band in the kit's background colour: the frame's own green shows at the top.
    const top = [
      ...(await sharp(await ctx.storage.read(out.render.thumbnail_key))
        .extract({ left: 180, top: 80, width: 1, height: 1 })
        .raw()
        .toBuffer()),
    ];
    expect(top[1]!, String(top)).toBeGreaterThan(90);
    expect(top[2]!, String(top)).toBeLessThan(60);
  });

  it("counts a brand's intro card before the hook's first word", async () => {
    ctx = await makeStageCtx({ poster_title: false });
    await ctx.storage.putFile("runs/r/clip-b-captioned.mp4", await colourClip(ctx.workdir));
    // On the clip's own timeline the hook starts at once; the file opens with a 1 s intro card.
    const words = ["Here", "is", "the", "point."].map((text, i) => ({
      text,
      start: 0.2 + i * 0.3,
      end: 0.45 + i * 0.3,
    }));
    await ctx.storage.write(
      "runs/r/clip-b.words.json",
      JSON.stringify({ ref: "b", hook: "Here is the point.", words }),
    );
    const out = await poster.run(
      {
        render: {
          key: "runs/r/clip-b-captioned.mp4",
          ref: "b",
          style: "clean",
          duration: 3,
          width: 360,
          height: 640,
          hook_title: false,
          thumbnail_key: "runs/r/clip-b.jpg",
          poster_webp_key: "runs/r/clip-b.webp",
        },
        cut: {
          words_key: "runs/r/clip-b.words.json",
          hook: "Here is the point.",
          render_plan: { width: 360, height: 640 },
        },
        brand: { ...brand, intro: { text: "Welcome", seconds: 1, order: "card_first" } },
      },
      ctx,
    );
    expect(out.render.poster.at).toBeCloseTo(1.25, 3);
    const px = [
      ...(await sharp(await ctx.storage.read(out.render.thumbnail_key))
        .extract({ left: 180, top: 500, width: 1, height: 1 })
        .raw()
        .toBuffer()),
    ];
    // green: the second after the card, not the red card-time frame
    expect(px[1]! > 90 && px[0]! < 60, String(px)).toBe(true);
  });
});
