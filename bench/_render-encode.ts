/**
 * bench/render's encode part (issue 39, item 5): the final encode chosen by rate and distortion at
 * equal quality. The bare graph over the first BENCH_SWEEP_SECONDS, on three contents (the clean
 * bench source, light noise, heavy grain: ffmpeg's `noise` filter at strength 3 and 20, changing
 * every frame), each encoded by: the old final encode (superfast, CRF 20), bare ffmpeg at veryfast
 * CRF 20 (the trial's comparison), and clipd's final encode (DEFAULT_PRESET at DEFAULT_CRF), all
 * under the same VBV ceiling. For each: bytes, kbit/s, SSIM against a near-lossless reference of
 * the same content (veryfast CRF 4, no ceiling), and ffmpeg's CPU seconds.
 */
import { existsSync } from "node:fs";
import { rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CRF, DEFAULT_PRESET, PEAK_KBPS_1080x1920 } from "../daemon/render/render.js";
import { runBare, ssim } from "./_render-bare.js";

export interface EncodeEnv {
  base: string;
  video: string;
  /** The clip's ASS (captions.ass in `base`), when the main part wrote one. */
  ass?: string;
}

const CONTENTS = [
  { name: "clean (the bench source)", grain: 0 },
  { name: "light noise (noise 3)", grain: 3 },
  { name: "heavy grain (noise 20)", grain: 20 },
] as const;

const SETTINGS = [
  { what: "old final encode: superfast CRF 20", preset: "superfast", crf: 20 },
  { what: "bare ffmpeg: veryfast CRF 20", preset: "veryfast", crf: 20 },
  { what: `clipd's final encode: ${DEFAULT_PRESET} CRF ${DEFAULT_CRF}`, preset: DEFAULT_PRESET, crf: DEFAULT_CRF },
] as const;

/** An ASS with no events, for a run without the main part: the graph keeps its libass step. */
const EMPTY_ASS =
  "[Script Info]\nScriptType: v4.00+\nPlayResX: 1080\nPlayResY: 1920\n\n[V4+ Styles]\n" +
  "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, " +
  "Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, " +
  "MarginR, MarginV, Encoding\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, " +
  "Effect, Text\n";

export async function encodePart(env: EncodeEnv, seconds: number, load: () => string): Promise<void> {
  const ass = "captions.ass";
  if (!existsSync(path.join(env.base, ass))) await writeFile(path.join(env.base, ass), EMPTY_ASS);
  const common = { source: env.video, pieces: [{ start: 0, end: seconds }], ass, cwd: env.base };
  const out = (name: string) => path.join(env.base, `encode-${name}.mp4`);
  console.log(
    `\n#### Final encode by rate and distortion, bare graph, first ${seconds} s at 1080×1920, VBV ceiling ` +
      `${PEAK_KBPS_1080x1920}k; SSIM against veryfast CRF 4 without a ceiling; load ${load()}\n`,
  );
  console.log("| content | encode | bytes | kbit/s | ÷ old bytes | SSIM | CPU s | ÷ old CPU |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  // BENCH_ENCODE_CONTENTS=heavy runs only the contents whose name holds that word (a row that a
  // loaded machine ran out of time for can be measured alone).
  const only = process.env.BENCH_ENCODE_CONTENTS;
  for (const c of CONTENTS.filter((x) => !only || x.name.includes(only))) {
    const ref = out(`ref-${c.grain}`);
    await runBare({ ...common, grain: c.grain, output: ref, preset: "veryfast", crf: 4, peakKbps: 0 });
    let old: { bytes: number; cpu: number } | undefined;
    for (const s of SETTINGS) {
      const file = out(`${c.grain}-${s.preset}-${s.crf}`);
      const { cpu } = await runBare({
        ...common,
        grain: c.grain,
        output: file,
        preset: s.preset,
        crf: s.crf,
        peakKbps: PEAK_KBPS_1080x1920,
      });
      const bytes = (await stat(file)).size;
      old ??= { bytes, cpu };
      const score = await ssim(file, ref);
      console.log(
        `| ${c.name} | ${s.what} | ${bytes} | ${Math.round((bytes * 8) / seconds / 1000)} | ` +
          `${(bytes / old.bytes).toFixed(2)} | ${score.toFixed(4)} | ${cpu.toFixed(2)} | ` +
          `${(cpu / old.cpu).toFixed(2)} |`,
      );
      await rm(file, { force: true });
    }
    await rm(ref, { force: true });
  }
}
