// What a creator gets, case by case (issue 29): each case rendered by the real cut, caption-burn and
// poster stages, its frame(s) and poster written side by side to docs/screenshots/case-*.png (the
// sound beside them where the case is heard, not seen). Checks are light: the look is for a reader
// of docs/clips.md; the other tests hold each behaviour to its pixels and levels.
import { existsSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import poster from "../../plugins/poster/index.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { boxSource, frameAt, renderClip, solidPng, type Rendered } from "../helpers/brand-render.js";
import { gallery, soundOf } from "../helpers/gallery.js";
import { FIXTURE_DIR, makeSpeechWav, muxTalk, TEST_MEDIA } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const VIDEO = { duration: 5, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true };
const KIT: BrandSnapshot = {
  id: "kg",
  name: "Kit G",
  colours: { primary: "#ffffff", accent: "#ffd400", background: "#3b1f5c" },
  show_name: "Founding Speeches",
  logo: { key: "brand/logo.png", corner: "top-right", size: 0.15, opacity: 1 },
};
const done: Rendered[] = [];
let scratch: TestStageCtx;
let logo = "";
let cover = "";

/** The clip's poster (the poster stage, as the clip pipeline runs it last) as PNG bytes. */
async function posterOf(r: Rendered): Promise<Buffer> {
  const out = await poster.run({ ...r.input, render: r.render }, { ...r.ctx, options: {} });
  return sharp(await r.ctx.storage.read(out.render.thumbnail_key))
    .png()
    .toBuffer();
}

async function render(o: Parameters<typeof renderClip>[0]): Promise<Rendered> {
  const r = await renderClip(o);
  done.push(r);
  return r;
}

beforeAll(async () => {
  boxSource();
  scratch = await makeStageCtx();
  logo = await solidPng(path.join(scratch.workdir, "logo.png"), "#ff0000");
  cover = path.join(scratch.workdir, "cover.png");
  execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "mandelbrot=s=480x480", "-frames:v", "1", cover]);
});
afterAll(async () => {
  await Promise.all([scratch?.cleanup(), ...done.map((d) => d.ctx.cleanup())]);
});

describe("clip gallery", () => {
  it("first cut and a restyle of it", async () => {
    const first = await render({ source: boxSource(), media: VIDEO, cut: { width: 540 }, burn: { hook_title: true } });
    expect(existsSync(await gallery("case-first-cut", [frameAt(first.file, 1.2), await posterOf(first)]))).toBe(true);
    // A restyle renders from the same plan: another style and size, the hook box gone.
    const out = await captionBurn.run(
      { ...first.input, render: first.render },
      { ...first.ctx, options: { style: "karaoke", caption_size: "large", hook_title: false, preset: "ultrafast" } },
    );
    const restyled: Rendered = { ...first, render: out.render, file: first.ctx.fileOf(out.render.key) };
    expect(restyled.render.style).toBe("karaoke");
    await gallery("case-restyle", [frameAt(restyled.file, 2.4), await posterOf(restyled)]);
  });

  it("branded, with intro and outro cards", async () => {
    const kit = {
      ...KIT,
      intro: { text: "Founding Speeches", seconds: 1 },
      outro: { text: "Follow for more", seconds: 1 },
    };
    const r = await render({
      source: boxSource(),
      media: VIDEO,
      cut: { width: 540 },
      burn: { hook_title: true },
      brand: kit,
      files: { "brand/logo.png": logo },
    });
    await gallery("case-branded-cards", [
      frameAt(r.file, 0.4),
      frameAt(r.file, 2.4),
      frameAt(r.file, 5.5),
      await posterOf(r),
    ]);
  });

  it("audio template", async () => {
    const r = await render({
      source: TEST_MEDIA.jfkWav,
      media: { duration: 11, kind: "audio", has_audio: true },
      cut: { width: 540 },
      burn: { hook_title: true },
      clip: {
        ref: "g1",
        number: 1,
        title: "Ask not what your country can do for you",
        start: 0,
        end: 4,
        pieces: [{ start: 0, end: 4 }],
      },
      brand: { ...KIT, logo: undefined, cover_key: "brand/cover.png" },
      files: { "brand/cover.png": cover },
    });
    await gallery("case-audio-template", [frameAt(r.file, 1.2), await posterOf(r)]);
  });

  it("split stereo: one voice a side in, both voices in both ears out", async () => {
    const source = path.join(FIXTURE_DIR, "gallery-split-stereo-v1.mp4");
    if (!existsSync(source)) {
      const host = await makeSpeechWav("Hello there friends, welcome.", 2.5);
      const guest = await makeSpeechWav("Thanks, it is good to be here.", 2.5, { voice: "en+f3" });
      const wav = path.join(scratch.workdir, "split.wav");
      // The host on the left channel only, then the guest on the right only.
      execFileSync("ffmpeg", [
        ...["-v", "error", "-i", host, "-i", guest, "-filter_complex"],
        "[0]apad=whole_dur=5[h];[1]adelay=2500,apad=whole_dur=5[g];[h][g]join=inputs=2:channel_layout=stereo[a]",
        ...["-map", "[a]", "-ar", "48000", wav],
      ]);
      muxTalk(wav, source, "testsrc2=s=640x360:r=30");
    }
    const r = await render({
      source,
      media: VIDEO,
      cut: { width: 540 },
      clip: { ref: "g2", number: 1, title: "Split stereo", start: 0, end: 5, pieces: [{ start: 0, end: 5 }] },
    });
    await gallery("case-split-stereo", [frameAt(r.file, 1.2), await posterOf(r), soundOf(source), soundOf(r.file)]);
  });
});
