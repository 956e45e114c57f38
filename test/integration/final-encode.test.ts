// The final encode chosen by rate and distortion at equal quality (issue 39, item 5), on real
// encodes of a clean 1080×1920 picture (testsrc2 cropped to 9:16, four seconds) with clipd's own
// encoder flags (finalEncodeArgs): the shipped encode keeps SSIM at 0.998 or more against a
// near-lossless encode of the same picture, and spends at most 0.6 of the bytes the old final
// encode (superfast, CRF 20) spent; both stay under the VBV ceiling. bench/render's encode part
// measures the same over noise and grain, with CPU seconds (docs/benchmarks.md).
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CRF, DEFAULT_PRESET, finalEncodeArgs } from "../../daemon/render/render.js";

const PICTURE = "testsrc2=s=1920x1080:r=30:d=4";
const GRAPH = "crop=ih*9/16:ih:(iw-ow)/2:0,scale=1080:1920,setsar=1,format=yuv420p";

function encode(out: string, codec: string[]): number {
  execFileSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", PICTURE, "-vf", GRAPH, ...codec, "-an", out]);
  return statSync(out).size;
}

describe("the final encode", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "clipd-encode-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("spends far fewer bytes than superfast CRF 20 at SSIM 0.998 or more", () => {
    const at = (name: string) => path.join(dir, name);
    // The flags without the audio ones (the picture has no sound).
    const AUDIO = ["-c:a", "-b:a", "-ar", "-ac"];
    const noAudio = (args: string[]) => args.filter((a, i) => !AUDIO.includes(a) && !AUDIO.includes(args[i - 1] ?? ""));
    const shipped = encode(
      at("shipped.mp4"),
      noAudio(finalEncodeArgs({ encoder: "libx264", width: 1080, height: 1920 })),
    );
    const old = encode(
      at("old.mp4"),
      noAudio(finalEncodeArgs({ encoder: "libx264", preset: "superfast", crf: 20, width: 1080, height: 1920 })),
    );
    encode(at("ref.mp4"), ["-c:v", "libx264", "-preset", "veryfast", "-crf", "4", "-pix_fmt", "yuv420p"]);
    const score = (f: string) => {
      const out = execFileSync(
        "bash",
        ["-c", 'ffmpeg -nostats -i "$1" -i "$2" -lavfi "[0:v][1:v]ssim" -f null - 2>&1', "bash", f, at("ref.mp4")],
        { encoding: "utf8" },
      );
      return Number(/All:([0-9.]+)/.exec(out)?.[1]);
    };
    const s = { shipped: score(at("shipped.mp4")), old: score(at("old.mp4")) };
    console.info(
      `final encode: ${DEFAULT_PRESET} CRF ${DEFAULT_CRF} ${shipped} bytes SSIM ${s.shipped.toFixed(4)}; ` +
        `superfast CRF 20 ${old} bytes SSIM ${s.old.toFixed(4)}; ratio ${(shipped / old).toFixed(2)}`,
    );
    expect(s.shipped).toBeGreaterThanOrEqual(0.998);
    expect(shipped / old).toBeLessThanOrEqual(0.6);
    // Both under the ceiling: 12 Mbit/s at 1080×1920, two seconds of buffer over four seconds.
    for (const bytes of [shipped, old]) expect((bytes * 8) / 4 / 1000).toBeLessThanOrEqual(12_000 * 1.5);
  });
});
