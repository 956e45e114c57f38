// A brand kit from upload to pixels (issue 19, "Done when"), over real HTTP on loopback: upload a
// font, make a kit with an accent colour, export a clip of jfk.wav naming the kit with a word-by-word
// style, and find the kit's accent in the caption band's pixels while words are spoken, and not the
// style's own highlight colour.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";
import { settleStatus, useJfkApiServer, type ApiServer } from "../helpers/api.js";
import type { TestHttpsServer } from "../helpers/https-server.js";
import { storedPath } from "../helpers/stage-ctx.js";

const run = promisify(execFile);
const FONT = readFileSync(path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf"));
const ACCENT = [0x00, 0xc8, 0xff];
const STYLE_HIGHLIGHT = [0xff, 0xe6, 0x00]; // bold-punch's own highlight (config/styles.yaml)

/**
 * Pixels near `rgb` in the caption band (rows 70–92 % of the frame: bottom captions, below the
 * audio template's waveform, which is drawn in the accent too) of frames at `times`, 270 px wide.
 */
async function bandCount(file: string, times: number[], rgb: number[]): Promise<number> {
  let n = 0;
  for (const at of times) {
    const vf = "crop=iw:ih*0.22:0:ih*0.70,scale=270:-2:flags=neighbor,format=rgb24";
    const px = (
      await run(
        "ffmpeg",
        ["-v", "error", "-ss", String(at), "-i", file, "-frames:v", "1", "-vf", vf, "-f", "rawvideo", "-"],
        { encoding: "buffer", maxBuffer: 1 << 24 },
      )
    ).stdout;
    for (let i = 0; i + 2 < px.length; i += 3)
      if (Math.abs(px[i]! - rgb[0]!) < 45 && Math.abs(px[i + 1]! - rgb[1]!) < 45 && Math.abs(px[i + 2]! - rgb[2]!) < 45)
        n++;
  }
  return n;
}

describe("a brand kit's accent in a rendered clip", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  it("uploads a font, makes a kit, renders with it and shows the accent on the spoken word", async () => {
    const a = await s.account({ plan: true, creditCents: 500 });
    const kit = await s.call(a.live, "POST", "/api/v1/brand-kits", {
      name: "Blue kit",
      colours: { primary: "#FFFFFF", accent: "#00C8FF", background: "#101820" },
    });
    expect(kit.status, JSON.stringify(kit.body)).toBe(201);
    const kitId = kit.body.brand_kit_id as string;
    const font = await fetch(`${s.base}/api/v1/brand-kits/${kitId}/font?file_name=DejaVuSans-Bold.ttf`, {
      method: "PUT",
      headers: { authorization: `Bearer ${a.live}`, "content-type": "font/ttf" },
      body: FONT,
    });
    expect(font.status).toBe(200);
    expect((await font.json()).font.family).toBe("DejaVu Sans");

    const ep = await s.call(a.live, "POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "brand",
      target_seconds: 15,
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(202);
    await settleStatus(s, a.live, `/api/v1/episodes/${ep.body.episode_id}`, "ready");
    // Emphasis off: the accent can only come from the word being spoken.
    const look = { clips: [1], style: "bold-punch", emphasis: false, hook_title: false, caption_position: "bottom" };
    const branded = await s.call(a.live, "POST", `/api/v1/episodes/${ep.body.episode_id}/clips`, {
      ...look,
      brand_kit: kitId,
    });
    expect(branded.status, JSON.stringify(branded.body)).toBe(202);
    const done = await settleStatus(s, a.live, `/api/v1/jobs/${branded.body.jobs[0].job_id}`, "completed");
    const rec = (await s.app.db.query(`select render, cut from clips where id = $1`, [done.clip_id])).rows[0];
    const render = typeof rec.render === "string" ? JSON.parse(rec.render) : rec.render;
    const file = storedPath(s.app.storage, render.key);
    const words = JSON.parse(
      (await s.app.storage.read((typeof rec.cut === "string" ? JSON.parse(rec.cut) : rec.cut).words_key)).toString(
        "utf8",
      ),
    ).words as Array<{ start: number; end: number }>;
    // Mid-word times of a few spoken words, on the clip's timeline (no intro card in this kit).
    const times = [1, 3, 5]
      .map((i) => words[Math.min(i, words.length - 1)]!)
      .map((w) => +((w.start + w.end) / 2).toFixed(2));
    expect(await bandCount(file, times, ACCENT)).toBeGreaterThan(150);
    expect(await bandCount(file, times, STYLE_HIGHLIGHT)).toBeLessThan(20);
  });
});
