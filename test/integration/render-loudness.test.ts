// Every render is ready to post: its sound at −14 LUFS (±1 LU) with true peak under −1 dBTP, H.264
// High with BT.709 tags, within the VBV ceiling; a split-stereo source comes out with both voices in
// both ears. Real speech (espeak-ng, made quiet on purpose) through the real cut and caption-burn.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import { PEAK_KBPS_1080x1920 } from "../../daemon/render/render.js";
import { renderClip, type Rendered } from "../helpers/brand-render.js";
import { FIXTURE_DIR, makeSpeechWav, muxTalk } from "../helpers/media.js";
import { channelLean, loudnessOf, vbvCheck, videoTags } from "../helpers/render-checks.js";

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
const VIDEO = { duration: 5, kind: "video", width: 1280, height: 720, rotation: 0, has_audio: true };
const AUDIO = { duration: 5, kind: "audio", rotation: 0, has_audio: true };
const HQ = { preset: "superfast" };
const done: Rendered[] = [];

/** Quiet speech (about −30 LUFS) under a grainy picture, so both the loudness and the bitrate have work. */
async function quietTalk(): Promise<{ video: string; audio: string }> {
  const speech = await makeSpeechWav("Hello there friends. Loud clips play well in a feed of other clips.", 5);
  mkdirSync(FIXTURE_DIR, { recursive: true });
  const audio = path.join(FIXTURE_DIR, "quiet-talk-v1.wav");
  if (!existsSync(audio)) sh("sox", ["-D", speech, "-r", "48000", "-c", "2", audio, "vol", "0.08"]);
  const video = muxTalk(
    audio,
    path.join(FIXTURE_DIR, "quiet-talk-grain-v1.mp4"),
    "testsrc2=s=1280x720:r=30,noise=alls=40:allf=t+u",
  );
  return { video, audio };
}

/** Two voices, one per channel: the host on the left, then the guest on the right. */
async function splitStereo(): Promise<string> {
  const out = path.join(FIXTURE_DIR, "split-stereo-v1.mp4");
  if (existsSync(out)) return out;
  const host = await makeSpeechWav("Hello there friends, welcome.", 2.5);
  const guest = await makeSpeechWav("Thanks, it is good to be here.", 2.5, { voice: "en+f3" });
  const wav = path.join(FIXTURE_DIR, "split-stereo-v1.wav");
  // Left: the host then silence; right: silence then the guest.
  sh("sox", ["-D", host, "-r", "48000", "-c", "1", path.join(FIXTURE_DIR, "split-l.wav"), "pad", "0", "2.5"]);
  sh("sox", ["-D", guest, "-r", "48000", "-c", "1", path.join(FIXTURE_DIR, "split-r.wav"), "pad", "2.5", "0"]);
  sh("sox", ["-D", "-M", path.join(FIXTURE_DIR, "split-l.wav"), path.join(FIXTURE_DIR, "split-r.wav"), wav]);
  return muxTalk(wav, out, "testsrc2=s=1280x720:r=30");
}

/** Two microphones, each hearing the other voice 10 dB down (a room with bleed, issue 39). */
async function bleedStereo(): Promise<string> {
  const out = path.join(FIXTURE_DIR, "bleed-stereo-v1.mp4");
  if (existsSync(out)) return out;
  await splitStereo();
  const wav = path.join(FIXTURE_DIR, "bleed-stereo-v1.wav");
  const [l, r] = ["split-l.wav", "split-r.wav"].map((f) => path.join(FIXTURE_DIR, f));
  // Left: the host and the guest at −10 dB (0.316); right: the guest and the host at −10 dB.
  sh("sox", ["-D", "-M", l, r, wav, "remix", "1v1,2v0.316", "2v1,1v0.316"]);
  return muxTalk(wav, out, "testsrc2=s=1280x720:r=30");
}

function expectReady(file: string, width = 1080, height = 1920): void {
  const l = loudnessOf(file);
  expect(Math.abs(l.lufs - -14), `integrated ${l.lufs} LUFS`).toBeLessThanOrEqual(1);
  expect(l.truePeak, `true peak ${l.truePeak} dBTP`).toBeLessThanOrEqual(-1);
  expect(videoTags(file)).toMatchObject({
    profile: "High",
    color_space: "bt709",
    color_primaries: "bt709",
    color_transfer: "bt709",
    color_range: "tv",
  });
  const kbps = Math.round((PEAK_KBPS_1080x1920 * width * height) / (1080 * 1920));
  const vbv = vbvCheck(file, kbps, kbps * 2);
  expect(vbv.ok, `VBV at ${kbps} kbit/s (mean ${vbv.meanKbps.toFixed(0)})`).toBe(true);
  expect(vbv.meanKbps).toBeLessThanOrEqual(kbps * 1.02);
}

describe("renders ready to post", () => {
  let talk: { video: string; audio: string };
  beforeAll(async () => {
    talk = await quietTalk();
  });
  afterAll(async () => {
    await Promise.all(done.map((r) => r.ctx.cleanup()));
  });

  it("a first render and its restyle: −14 LUFS, under −1 dBTP, High, BT.709, within the ceiling", async () => {
    expect(loudnessOf(talk.video).lufs).toBeLessThan(-24); // the source really is quiet
    const r = await renderClip({ source: talk.video, media: VIDEO, cut: HQ, burn: HQ });
    done.push(r);
    expectReady(r.file);
    // A restyle renders the same plan again in another style.
    const restyled = await captionBurn.run(
      { ...r.input, render: r.render },
      { ...r.ctx, options: { style: "karaoke", ...HQ } },
    );
    expectReady(r.ctx.fileOf(restyled.render.key));
  });

  it("an audio-template clip", async () => {
    const r = await renderClip({ source: talk.audio, media: AUDIO, cut: HQ, burn: HQ });
    done.push(r);
    expectReady(r.file);
  });

  it("a branded clip with intro and outro cards, whose cards carry room tone, not silence", async () => {
    const r = await renderClip({
      source: talk.video,
      media: VIDEO,
      cut: { ...HQ, aspect_ratio: "1:1" },
      burn: HQ,
      brand: {
        id: "k",
        name: "Kit",
        colours: { primary: "#ffffff", accent: "#ff5fa2", background: "#22aa55" },
        intro: { text: "The Garden Hour", seconds: 1, order: "card_first" },
        outro: { text: "Follow for more", seconds: 1 },
      },
    });
    done.push(r);
    expectReady(r.file, 1080, 1080);
    const card = path.join(r.ctx.workdir, "intro.wav");
    sh("ffmpeg", ["-v", "error", "-y", "-t", "0.9", "-i", r.file, "-vn", card]);
    const level = loudnessOf(card);
    expect(level.truePeak).toBeGreaterThan(-90); // not digital silence
    expect(level.truePeak).toBeLessThan(-30); // and far under the speech
  });

  it("a split-stereo source: both voices in both ears", async () => {
    const source = await splitStereo();
    expect(channelLean(source)).toBeGreaterThan(0.6); // one voice per side going in
    const r = await renderClip({ source, media: VIDEO, cut: HQ, burn: HQ });
    done.push(r);
    expect(channelLean(r.file)).toBeLessThan(0.1);
    expectReady(r.file);
  });

  it("two microphones with −10 dB of bleed: folded too, both voices in both ears", async () => {
    const source = await bleedStereo();
    // Going in: no side is ever silent (the old rule saw no split), but each voice leans 10 dB.
    expect(channelLean(source, 12)).toBeLessThan(0.1);
    expect(channelLean(source, 6)).toBeGreaterThan(0.6);
    const r = await renderClip({ source, media: VIDEO, cut: HQ, burn: HQ });
    done.push(r);
    expect(channelLean(r.file, 3)).toBeLessThan(0.1);
    expectReady(r.file);
  });

  it("loudness off leaves the sound as it was", async () => {
    const r = await renderClip({ source: talk.video, media: VIDEO, cut: HQ, burn: { ...HQ, loudness: "off" } });
    done.push(r);
    expect(loudnessOf(r.file).lufs).toBeLessThan(-24);
  });
});
