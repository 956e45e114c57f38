import path from "node:path";
import sharp from "sharp";
import { Type } from "@sinclair/typebox";
import { Defaulted, defineStage, resolveOptions, StageError, type StageOptions } from "../../daemon/engine/stage.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { cardTimes, withRunBrand } from "../../daemon/render/brand-graph.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { runFfmpeg, SAFE_INPUT } from "../../daemon/render/render.js";
import { loadStyles } from "../../daemon/render/styles.js";
import type { RenderPlan } from "../../daemon/render/clip-graph.js";
import { cleanFrame, spokenMoment, steadyMoment } from "./frame.js";
import { hookStart, titleSvg } from "./draw.js";
import { logoPlace } from "../../daemon/render/logo-place.js";

/**
 * The clip's poster (issue 19, item 5): the rendered clip's frame at the hook's first word, where
 * the clip's opening line begins with its caption on screen, with the title drawn over it in the
 * brand's colours and font (the style's hook colours without a brand), as JPEG and WebP. It runs
 * after caption-burn and takes the place of the frame caption-burn kept (render.thumbnail_key and
 * render.poster_webp_key are rewritten), so every reader of those keys gets this poster.
 */
export const PosterOptionsSchema = Type.Object(
  {
    poster_title: Defaulted(
      Type.Boolean({ description: "Draw the clip's title over the frame (`false`: the bare frame)." }),
      true,
    ),
    poster_quality: Defaulted(
      Type.Integer({ minimum: 40, maximum: 95, description: "JPEG quality (WebP uses 5 less)." }),
      85,
    ),
  },
  { additionalProperties: false },
);
export type PosterOptions = StageOptions<typeof PosterOptionsSchema>;

export default defineStage<PosterOptions>({
  name: "poster",
  needs: ["render"],
  provides: ["render"],
  summary:
    "Takes the rendered clip's frame at the hook's first word and draws the " +
    "title on it in the brand's style, as JPEG and WebP",
  options: PosterOptionsSchema,
  async run(input, ctx) {
    const o = resolveOptions(PosterOptionsSchema, ctx.options);
    const render = input.render ?? {};
    if (!render.key || !(await ctx.storage.exists(render.key))) {
      throw new StageError("bad_input", `poster: the rendered clip "${render.key ?? "(none)"}" is not in storage`);
    }
    // The words the render burned (a caption edit hands its own file in input.cut.words_key).
    const cut = input.cut ?? {};
    let doc: {
      words?: Array<{ text: string; start: number; end: number }>;
      hook?: string | null;
      title?: string | null;
    } = {};
    if (cut.words_key && (await ctx.storage.exists(cut.words_key)))
      doc = JSON.parse((await ctx.storage.read(cut.words_key)).toString("utf8"));
    const duration = Number(render.duration ?? cut.duration ?? 0);
    // The words are on the clip's own timeline; a brand's intro card plays before it in the file.
    const intro = cardTimes(withRunBrand(cut.render_plan, input.brand ?? undefined)?.brand).before;
    let at = Math.max(
      0,
      Math.min(intro + hookStart(doc.words ?? [], doc.hook ?? cut.hook), Math.max(0, duration - 0.1)),
    );
    const title = typeof render.hook_title === "string" ? render.hook_title : (cut.title ?? doc.title ?? undefined);

    ctx.progress(5, "poster");
    const plan: RenderPlan | undefined = withRunBrand(cut.render_plan, input.brand ?? undefined);
    const png = path.join(ctx.workdir, "poster.png");
    let clean = false;
    const audio = plan?.layout === "audio";
    if (plan?.source_key && plan.pieces?.length && !audio) {
      // The picture without captions or the hook box, so the title below is the only text on it;
      // never from a scene under a second (a flash of another camera is no cover).
      at = intro + steadyMoment(at - intro, plan.crop_plan, duration - intro);
      await cleanFrame(ctx, plan, at - intro, png);
      clean = true;
    } else {
      // -ss before -i seeks exactly on a decode: the frame shown at `at`, the same one a player shows.
      // An audio clip's hook box holds the waveform's band while it shows: its poster is taken
      // after, with the cover, the title and the moving waveform (audio-template.ts).
      const hookUntil = Number(render.hook_until) || 0;
      const from =
        audio && hookUntil && hookUntil + 0.3 < duration - intro ? Math.max(at - intro, hookUntil + 0.05) : at - intro;
      if (audio) at = intro + spokenMoment(doc.words ?? [], from, duration - intro);
      const file = await stepFile(ctx, render.key);
      await runFfmpeg(
        ["-ss", at.toFixed(3), ...SAFE_INPUT, "-i", file, "-map", "0:v:0", "-frames:v", "1", "-update", "1", png],
        { signal: ctx.signal, cwd: ctx.workdir },
      );
    }
    const meta = await sharp(png).metadata();
    const width = meta.width ?? Number(render.width);
    const height = meta.height ?? Number(render.height);

    const brand: BrandSnapshot | undefined = input.brand && typeof input.brand === "object" ? input.brand : undefined;
    const catalogue = loadStyles(ctx.config?.render?.styles_file);
    const style =
      catalogue.styles.find((s) => s.id === render.style) ?? catalogue.styles.find((s) => s.id === catalogue.default);
    const look = brand
      ? {
          box: brand.colours.background,
          text: brand.colours.primary,
          accent: brand.colours.accent,
          font: brand.font?.family ?? style?.font ?? "DejaVu Sans",
        }
      : {
          box: style?.hook_background ?? "#000000D0",
          text: style?.hook_colour ?? "#FFFFFF",
          accent: style?.highlight ?? "#FFE600",
          font: style?.font ?? "DejaVu Sans",
        };
    let picture = sharp(png);
    // An audio clip's frame already shows its title on the cover still, and a rendered frame may
    // have the hook box burned in: the title is drawn once, never over another copy of itself. A
    // title the render left off for its unsure words (hook_title_off) is not put back on the poster.
    const drawTitle =
      o.poster_title && !!title?.trim() && !audio && (clean || !render.hook_title) && !render.hook_title_off;
    const logoCorner = plan?.brand?.logo?.corner;
    if (drawTitle && title)
      picture = picture.composite([
        {
          input: titleSvg(title.trim(), {
            width,
            height,
            ...look,
            uppercase: !!style?.uppercase && !brand,
            // A logo in a top corner keeps its corner: the band keeps clear of it, near the top.
            logo: logoCorner ? logoPlace(width, height, plan!.brand!.logo) : undefined,
          }),
          top: 0,
          left: 0,
        },
      ]);
    const flat = await picture.png().toBuffer();

    const base = `runs/${ctx.runId}/clip-${render.ref ?? cut.ref ?? "clip"}-poster`;
    const jpegKey: string = render.thumbnail_key ?? `${base}.jpg`;
    const webpKey: string = render.poster_webp_key ?? `${base}.webp`;
    await ctx.storage.write(jpegKey, await sharp(flat).jpeg({ quality: o.poster_quality, mozjpeg: true }).toBuffer());
    await ctx.storage.write(
      webpKey,
      await sharp(flat)
        .webp({ quality: o.poster_quality - 5 })
        .toBuffer(),
    );
    ctx.progress(100, "poster");
    return {
      render: {
        ...render,
        thumbnail_key: jpegKey,
        poster_webp_key: webpKey,
        poster: {
          at: +at.toFixed(3),
          width,
          height,
          title: drawTitle && title ? title.trim() : null,
          clean,
          brand: brand?.id ?? null,
        },
      },
    };
  },
});
