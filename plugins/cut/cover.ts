/**
 * The still of an audio clip and where its cover art comes from (given, the episode's, the kit's or
 * embedded in the file), redrawn small before sharp sees it. Apart from the stage's run because it
 * only concerns audio clips and reads untrusted pictures.
 */
import path from "node:path";
import { ffmpegPath, runTool, SAFE_INPUT_ARGS } from "../../daemon/render/ffmpeg.js";
import type { StageContext, StageInput } from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { decodeUntrusted } from "../../daemon/render/decode-jail.js";
import { makeBackground } from "./background.js";
import type { CutOptions } from "./options.js";

/**
 * The still of an audio clip: cover art (given, the episode's or the kit's, or embedded in the file) or a gradient,
 * with the show's name and the title in the brand's colours.
 */
export async function audioBackground(
  input: StageInput,
  o: CutOptions,
  ctx: StageContext<unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  b: { source: string; media: any; width: number; height: number; colour: string; title?: string },
): Promise<string> {
  const brand: BrandSnapshot | undefined = input.brand ?? undefined;
  const imageKey: string | undefined = o.background_image ?? input.cover?.key ?? brand?.cover_key;
  let image = imageKey && (await ctx.storage.exists(imageKey)) ? await stepFile(ctx, imageKey) : undefined;
  // An episode file with embedded cover art (an MP3's picture) lends it to the background.
  const coverStream = (b.media.streams ?? []).find((st: { cover_art?: boolean }) => st.cover_art) as
    | { index: number }
    | undefined;
  if (!image && coverStream) image = await extractCover(b.source, coverStream.index, ctx.workdir, ctx.signal);
  if (image) image = await safeCover(image, ctx.workdir);
  return makeBackground(path.join(ctx.workdir, "background.png"), {
    width: b.width,
    height: b.height,
    colour: brand?.colours?.background ?? b.colour,
    title: b.title,
    image,
    showName: brand?.show_name,
    textColour: brand?.colours?.primary,
    accent: brand?.colours?.accent,
    // The still keeps clear of the kit's logo (audio-template.ts); the render draws the logo there.
    logo: brand?.logo,
  });
}

/**
 * The cover art redrawn by the decoder child into a PNG of at most COVER_SIDE a side, so the sharp
 * work of the background (blur, attention crop) only ever sees a small picture clipd drew: art
 * embedded in an episode's file was never checked, and even checked art may be 40 MP. A cover the
 * child refuses or cannot read within its deadline is left out (the gradient stands in).
 */
async function safeCover(image: string, workdir: string): Promise<string | undefined> {
  const out = path.join(workdir, "cover-safe.png");
  const answer = await decodeUntrusted(
    { op: "raster", path: image, pixels: COVER_MAX_PIXELS, fit: COVER_SIDE, out },
    "cover",
  ).catch(() => undefined);
  return answer?.ok ? out : undefined;
}
const COVER_SIDE = 2048;
const COVER_MAX_PIXELS = 40_000_000;

/** Writes a file's embedded picture to the workdir; undefined when ffmpeg cannot read it. */
async function extractCover(
  source: string,
  streamIndex: number,
  workdir: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const out = path.join(workdir, "cover.png");
  const r = await runTool(
    ffmpegPath(),
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      ...SAFE_INPUT_ARGS,
      "-i",
      source,
      "-map",
      `0:${streamIndex}`,
      "-frames:v",
      "1",
      out,
    ],
    { signal },
  );
  return r.code === 0 ? out : undefined;
}
