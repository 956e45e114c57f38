import { describe, expect, it } from "vitest";
import { describeMedia, isCoverArt, rotationOf } from "../../plugins/probe/_describe.js";
import { classifyContentType, extensionOf, kindOfExtension, sniffMedia } from "../../daemon/domain/media-types.js";
import type { FfprobeResult, FfprobeStream } from "../../daemon/render/ffmpeg.js";

const video = (extra: Partial<FfprobeStream> = {}): FfprobeStream => ({
  index: 0,
  codec_type: "video",
  codec_name: "h264",
  width: 1920,
  height: 1080,
  avg_frame_rate: "30000/1001",
  ...extra,
});
const audio: FfprobeStream = { index: 1, codec_type: "audio", codec_name: "aac", sample_rate: "48000", channels: 2 };
const probe = (streams: FfprobeStream[], duration = "12.5"): FfprobeResult => ({
  streams,
  format: { format_name: "mov,mp4", duration },
});

describe("describeMedia", () => {
  it("describes a plain video", () => {
    const m = describeMedia(probe([video(), audio]), 1000);
    expect(m).toMatchObject({
      kind: "video",
      width: 1920,
      height: 1080,
      rotation: 0,
      fps: 29.97,
      duration: 12.5,
      bytes: 1000,
      has_audio: true,
    });
    expect(m.audio).toEqual({ codec: "aac", sample_rate: 48000, channels: 2 });
  });

  it("reads rotation from the display matrix (counter-clockwise) or the rotate tag (clockwise)", () => {
    expect(rotationOf(video({ side_data_list: [{ side_data_type: "Display Matrix", rotation: -90 }] }))).toBe(90);
    expect(rotationOf(video({ side_data_list: [{ side_data_type: "Display Matrix", rotation: 90 }] }))).toBe(270);
    expect(rotationOf(video({ side_data_list: [{ side_data_type: "Display Matrix", rotation: 180 }] }))).toBe(180);
    expect(rotationOf(video({ tags: { rotate: "90" } }))).toBe(90);
    expect(rotationOf(video({ tags: { rotate: "-90" } }))).toBe(270);
    const m = describeMedia(probe([video({ tags: { rotate: "270" } }), audio]), 1);
    expect([m.rotation, m.width, m.height]).toEqual([270, 1080, 1920]);
  });

  it("applies non-square pixels to the display width", () => {
    const m = describeMedia(probe([video({ width: 720, height: 576, sample_aspect_ratio: "16:15" }), audio]), 1);
    expect([m.width, m.height]).toEqual([768, 576]);
  });

  it("does not count cover art as video", () => {
    const cover = video({ codec_name: "mjpeg", width: 500, height: 500, disposition: { attached_pic: 1 } });
    expect(isCoverArt(cover)).toBe(true);
    expect(isCoverArt(video({ codec_name: "png", nb_frames: "1" }))).toBe(true);
    const m = describeMedia(probe([audio, cover]), 1);
    expect(m.kind).toBe("audio");
    expect(m.width).toBeUndefined();
  });

  it("falls back to stream durations and reports missing audio", () => {
    expect(describeMedia({ streams: [{ ...video(), duration: "4.2" }], format: {} }, 1)).toMatchObject({
      duration: 4.2,
      has_audio: false,
    });
    expect(describeMedia({ streams: [video()], format: {} }, 1).duration).toBe(0);
  });
});

describe("media types", () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

  it.each([
    [bytes([0, 0, 0, 0x20], "ftypisom", [0, 0, 2, 0]), ".mp4"],
    [bytes([0, 0, 0, 0x20], "ftypM4A ", [0, 0, 0, 0]), ".m4a"],
    [bytes([0, 0, 0, 0x14], "ftypqt  "), ".mov"],
    [bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], "webm"), ".webm"],
    [bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], "matroska"), ".mkv"],
    [bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), ".wav"],
    [bytes("RIFF", [0, 0, 0, 0], "AVI LIST"), ".avi"],
    [bytes("ID3", [3, 0, 0, 0, 0, 0, 0]), ".mp3"],
    [bytes([0xff, 0xfb, 0x90, 0x64]), ".mp3"],
    [bytes([0xff, 0xf1, 0x50, 0x80]), ".aac"],
    [bytes("OggS", [0, 2], "....................", "OpusHead"), ".opus"],
    [bytes("OggS", [0, 2], "\u0001vorbis"), ".ogg"],
    [bytes("fLaC", [0, 0, 0, 0x22]), ".flac"],
  ])("sniffs %#", (head, ext) => {
    expect(sniffMedia(head)).toMatchObject({ kind: "media", ext });
  });

  it("tells pages and text from media", () => {
    expect(sniffMedia(Buffer.from("\uFEFF  <!DOCTYPE html><html>")).kind).toBe("html");
    expect(sniffMedia(Buffer.from("<html lang=en>")).kind).toBe("html");
    expect(sniffMedia(Buffer.from('{"error": "not found"}')).kind).toBe("text");
    expect(sniffMedia(Buffer.from([0, 1, 2, 3, 4, 5, 200, 201])).kind).toBe("unknown");
  });

  it("classifies content types", () => {
    expect(classifyContentType("audio/mpeg")).toBe("media");
    expect(classifyContentType("Video/MP4; codecs=avc1")).toBe("media");
    expect(classifyContentType("application/ogg")).toBe("media");
    expect(classifyContentType("application/octet-stream")).toBe("ambiguous");
    expect(classifyContentType(undefined)).toBe("ambiguous");
    expect(classifyContentType("text/html; charset=utf-8")).toBe("other");
    expect(classifyContentType("application/vnd.apple.mpegurl")).toBe("other");
    expect(classifyContentType("image/jpeg")).toBe("other");
  });

  it("reads extensions", () => {
    expect(extensionOf("My Talk.MP4")).toBe(".mp4");
    expect(extensionOf("/a/b.c/file")).toBe("");
    expect(extensionOf(".hidden")).toBe("");
    expect(kindOfExtension("x.opus")).toBe("audio");
    expect(kindOfExtension(".mkv")).toBe("video");
    expect(kindOfExtension("x.txt")).toBeUndefined();
  });
});
