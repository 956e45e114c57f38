/**
 * Turns ffprobe's JSON into the `media` object later stages read. Pure, so it is easy to test
 * against odd ffprobe answers without making odd files.
 */
import type { FfprobeResult, FfprobeStream } from "../../daemon/render/ffmpeg.js";

export interface MediaInfo {
  /** Seconds. */
  duration: number;
  /** "video" when there is a real picture track (cover art does not count), else "audio". */
  kind: "video" | "audio";
  bytes: number;
  /** ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  format: string;
  /** Display size: after rotation and non-square pixels. Only for video. */
  width?: number;
  height?: number;
  /** Clockwise degrees the picture must be turned for display: 0, 90, 180 or 270. */
  rotation: number;
  fps?: number;
  has_audio: boolean;
  audio?: { codec: string; sample_rate: number; channels: number; channel_layout?: string; bit_rate?: number };
  video?: {
    codec: string;
    coded_width: number;
    coded_height: number;
    pix_fmt?: string;
    bit_rate?: number;
    sample_aspect_ratio?: string;
  };
  streams: Array<{ index: number; type: string; codec: string; cover_art?: boolean }>;
}

const STILL_IMAGE_CODECS = new Set(["mjpeg", "png", "bmp", "gif", "webp", "tiff", "jpegls"]);

/** Cover art in an MP3 or M4A shows up as a video stream; it is a picture, not a video. */
export function isCoverArt(s: FfprobeStream): boolean {
  if (s.disposition?.attached_pic) return true;
  return STILL_IMAGE_CODECS.has(s.codec_name ?? "") && (s.nb_frames === "1" || s.avg_frame_rate === "0/0");
}

export function describeMedia(probe: FfprobeResult, bytes: number): MediaInfo {
  const video = pickDefault(probe.streams.filter((s) => s.codec_type === "video" && !isCoverArt(s)));
  const audio = pickDefault(probe.streams.filter((s) => s.codec_type === "audio"));
  const durations = [probe.format.duration, ...probe.streams.map((s) => s.duration)]
    .map(Number)
    .filter((n) => Number.isFinite(n) && n > 0);
  const duration =
    Number.isFinite(Number(probe.format.duration)) && Number(probe.format.duration) > 0
      ? Number(probe.format.duration)
      : Math.max(0, ...durations);

  const info: MediaInfo = {
    duration: round(duration, 3),
    kind: video ? "video" : "audio",
    bytes,
    format: probe.format.format_name ?? "",
    rotation: video ? rotationOf(video) : 0,
    has_audio: !!audio,
    streams: probe.streams.map((s) => ({
      index: s.index,
      type: s.codec_type ?? "unknown",
      codec: s.codec_name ?? "unknown",
      ...(s.codec_type === "video" && isCoverArt(s) ? { cover_art: true } : {}),
    })),
  };
  if (audio) {
    info.audio = {
      codec: audio.codec_name ?? "unknown",
      sample_rate: Number(audio.sample_rate) || 0,
      channels: audio.channels ?? 0,
      ...(audio.channel_layout ? { channel_layout: audio.channel_layout } : {}),
      ...(Number(audio.bit_rate) > 0 ? { bit_rate: Number(audio.bit_rate) } : {}),
    };
  }
  if (video && video.width && video.height) {
    const sar = ratio(video.sample_aspect_ratio);
    // Non-square pixels: widen (or narrow) the picture to its display aspect.
    let width = sar && sar !== 1 ? Math.round(video.width * sar) : video.width;
    let height = video.height;
    if (info.rotation === 90 || info.rotation === 270) [width, height] = [height, width];
    info.width = width;
    info.height = height;
    const fps = ratio(video.avg_frame_rate) ?? ratio(video.r_frame_rate);
    if (fps) info.fps = round(fps, 3);
    info.video = {
      codec: video.codec_name ?? "unknown",
      coded_width: video.width,
      coded_height: video.height,
      ...(video.pix_fmt ? { pix_fmt: video.pix_fmt } : {}),
      ...(Number(video.bit_rate) > 0 ? { bit_rate: Number(video.bit_rate) } : {}),
      ...(video.sample_aspect_ratio && video.sample_aspect_ratio !== "1:1" && video.sample_aspect_ratio !== "0:1"
        ? { sample_aspect_ratio: video.sample_aspect_ratio }
        : {}),
    };
  }
  return info;
}

/**
 * Clockwise display rotation. ffprobe reports a display matrix as counter-clockwise degrees
 * (-90 for a phone video shot upright) and the older `rotate` tag as clockwise degrees.
 */
export function rotationOf(s: FfprobeStream): number {
  const matrix = s.side_data_list?.find((d) => typeof d.rotation === "number" || d.side_data_type === "Display Matrix");
  let degrees: number | undefined;
  if (matrix && Number.isFinite(Number(matrix.rotation))) degrees = -Number(matrix.rotation);
  else if (s.tags?.rotate !== undefined && Number.isFinite(Number(s.tags.rotate))) degrees = Number(s.tags.rotate);
  if (degrees === undefined) return 0;
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

function pickDefault(streams: FfprobeStream[]): FfprobeStream | undefined {
  return streams.find((s) => s.disposition?.default) ?? streams[0];
}

/** "30000/1001" or "4:3" → a number; undefined for 0/0, 0:1 or garbage. */
function ratio(text: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)[/:](\d+(?:\.\d+)?)$/.exec(text ?? "");
  if (!m) return undefined;
  const value = Number(m[1]) / Number(m[2]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
