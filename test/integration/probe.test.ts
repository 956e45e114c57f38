import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import probe from "../../plugins/probe/index.js";
import { StageError } from "../../daemon/engine/stage.js";
import { makeAudioWithCover, makeSpeechWav, makeVideo, TEST_MEDIA, transcode } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

let ctx: TestStageCtx | undefined;
afterEach(async () => {
  await ctx?.cleanup();
  ctx = undefined;
});

/** Puts `file` into a fresh ctx's storage under `name` and runs probe on it. */
async function probeFile(file: string | Buffer, name: string, options: Record<string, unknown> = {}) {
  ctx = await makeStageCtx(options);
  const key = `uploads/test/${name}`;
  if (typeof file === "string") await ctx.storage.putFile(key, file);
  else await ctx.storage.write(key, file);
  return probe.run({ source: { key, name } }, ctx);
}

async function probeError(
  file: string | Buffer,
  name: string,
  options: Record<string, unknown> = {},
): Promise<StageError> {
  const err = await probeFile(file, name, options).then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(StageError);
  expect(err.retryable).toBe(false);
  return err;
}

describe("probe", () => {
  it("reads jfk.wav", async () => {
    const { media } = await probeFile(TEST_MEDIA.jfkWav, "jfk.wav");
    expect(media.kind).toBe("audio");
    expect(media.duration).toBeCloseTo(11.0, 1);
    expect(media.has_audio).toBe(true);
    expect(media.audio).toMatchObject({ codec: "pcm_s16le", sample_rate: 16000, channels: 1 });
    expect(media.format).toBe("wav");
    expect(media.rotation).toBe(0);
    expect(media.width).toBeUndefined();
    expect(media.bytes).toBeGreaterThan(300_000);
    expect(ctx!.progressCalls.at(-1)?.[0]).toBe(100);
  });

  it("reads jfk.mp3 and other audio containers", async () => {
    expect((await probeFile(TEST_MEDIA.jfkMp3, "jfk.mp3")).media).toMatchObject({
      kind: "audio",
      audio: { codec: "mp3" },
    });
    const opus = await probeFile(await transcode(TEST_MEDIA.jfkWav, ".opus"), "jfk.opus");
    expect(opus.media.audio.codec).toBe("opus");
    expect(opus.media.duration).toBeCloseTo(11.0, 0);
  });

  it("reads a generated video", async () => {
    const { media } = await probeFile(await makeVideo({ seconds: 2, width: 640, height: 360 }), "clip.mp4");
    expect(media).toMatchObject({ kind: "video", width: 640, height: 360, rotation: 0, fps: 25, has_audio: true });
    expect(media.video).toMatchObject({ codec: "h264", coded_width: 640, coded_height: 360 });
    expect(media.audio).toMatchObject({ codec: "aac", sample_rate: 44100, channels: 1 });
    expect(media.duration).toBeCloseTo(2, 1);
  });

  it("swaps width and height for a 90° rotated video", async () => {
    const { media } = await probeFile(
      await makeVideo({ seconds: 1, width: 320, height: 240, rotate: 90 }),
      "phone.mp4",
    );
    expect(media).toMatchObject({ kind: "video", rotation: 90, width: 240, height: 320 });
    expect(media.video).toMatchObject({ coded_width: 320, coded_height: 240 });
    const upside = await probeFile(await makeVideo({ seconds: 1, rotate: 180 }), "upside.mp4");
    expect(upside.media).toMatchObject({ rotation: 180, width: 320, height: 240 });
  });

  it("reads a webm with speech", async () => {
    const { media } = await probeFile(
      await makeVideo({ seconds: 2, ext: ".webm", speech: "hello there" }),
      "talk.webm",
    );
    expect(media).toMatchObject({ kind: "video", video: { codec: "vp9" }, audio: { codec: "opus" } });
  });

  it("counts an mp3 with cover art as audio", async () => {
    const { media } = await probeFile(await makeAudioWithCover(TEST_MEDIA.jfkMp3), "episode.mp3");
    expect(media.kind).toBe("audio");
    expect(media.width).toBeUndefined();
    expect(media.streams.find((s: any) => s.type === "video")).toMatchObject({ codec: "png", cover_art: true });
  });

  it("refuses a corrupt file", async () => {
    const err = await probeError(randomBytes(64 * 1024), "movie.mp4");
    expect(err.code).toBe("unreadable");
    expect(err.message).toMatch(/^movie\.mp4 could not be read as audio or video: .+/);
    expect(err.message).not.toContain(ctx!.storage.root);
  });

  it("refuses a text file dressed as media", async () => {
    const err = await probeError(Buffer.from("just some words\n".repeat(100)), "notes.mp3");
    expect(err.code).toBe("unreadable");
  });

  it("refuses an empty file", async () => {
    const err = await probeError(Buffer.alloc(0), "empty.wav");
    expect(err.code).toBe("unreadable");
    expect(err.message).toMatch(/empty/);
  });

  it("refuses an extension outside the list, naming it and the list", async () => {
    const err = await probeError(TEST_MEDIA.jfkWav, "speech.txt");
    expect(err.code).toBe("unsupported_type");
    expect(err.message).toContain(".txt");
    expect(err.message).toContain(".mp4");
    expect(err.message).toContain(".flac");
    expect((await probeError(TEST_MEDIA.jfkWav, "noext")).code).toBe("unsupported_type");
  });

  it("refuses a file longer than max_seconds", async () => {
    const err = await probeError(TEST_MEDIA.jfkWav, "jfk.wav", { max_seconds: 5 });
    expect(err.code).toBe("too_long");
    expect(err.details).toMatchObject({ max_duration_seconds: 5 });
    expect(err.details!.duration_seconds).toBeCloseTo(11, 0);
  });

  it("refuses a file larger than max_bytes before probing", async () => {
    const err = await probeError(TEST_MEDIA.jfkWav, "jfk.wav", { max_bytes: 1000 });
    expect(err.code).toBe("too_big");
    expect(err.details).toMatchObject({ max_bytes: 1000 });
  });

  it("refuses a video without audio", async () => {
    const err = await probeError(await makeVideo({ seconds: 1, withAudio: false }), "silent.mp4");
    expect(err.code).toBe("no_audio");
  });

  it("accepts synthetic speech", async () => {
    const { media } = await probeFile(await makeSpeechWav("the quick brown fox", 3), "fox.wav");
    expect(media.duration).toBeCloseTo(3, 2);
  });
});
