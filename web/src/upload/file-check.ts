/**
 * The browser's own look at a file before anything is made for it: an empty file, a name that is
 * not one of clipd's media extensions, or first bytes that are no media container clipd takes are
 * refused here, in plain words, so no episode is created that could only wait for ever. The
 * extension list and the byte signatures follow daemon/domain/media-types.ts (the server checks
 * again; ffprobe has the last word); the web bundle cannot import the daemon, so they are restated.
 */

export const MEDIA_EXTENSIONS = [
  ".mp4",
  ".mov",
  ".m4v",
  ".webm",
  ".mkv",
  ".avi",
  ".mp3",
  ".m4a",
  ".aac",
  ".wav",
  ".ogg",
  ".opus",
  ".flac",
] as const;

/** The `accept` attribute of a media file input. */
export const MEDIA_ACCEPT = ["audio/*", "video/*", ...MEDIA_EXTENSIONS].join(",");

const ascii = (b: Uint8Array, start: number, end: number) => String.fromCharCode(...b.subarray(start, end));

/** True when the first bytes are a container clipd takes (MP4/MOV, Matroska/WebM, RIFF, Ogg, FLAC, MP3, AAC). */
export function looksLikeMedia(b: Uint8Array): boolean {
  if (b.length >= 12 && ascii(b, 4, 8) === "ftyp") return true;
  if (b.length >= 8 && ["moov", "mdat", "wide", "free", "skip", "pnot"].includes(ascii(b, 4, 8))) return true;
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return true;
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ["WAVE", "AVI "].includes(ascii(b, 8, 12))) return true;
  if (b.length >= 4 && (ascii(b, 0, 4) === "OggS" || ascii(b, 0, 4) === "fLaC")) return true;
  if (b.length >= 3 && ascii(b, 0, 3) === "ID3") return true;
  if (b.length >= 3 && b[0] === 0xff) {
    if (((b[1] ?? 0) & 0xf6) === 0xf0) return true; // ADTS AAC
    const b1 = b[1] ?? 0;
    if ((b1 & 0xe0) === 0xe0 && ((b1 >> 1) & 3) !== 0 && (b[2] ?? 0) >> 4 !== 0xf) return true; // MPEG audio
  }
  return false;
}

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
};

/**
 * The largest episode file and the longest episode clipd takes (4.5 GB = 4.5 × 2^30 bytes, 3 hours):
 * daemon/domain/limits.ts's EPISODE_MAX_BYTES and EPISODE_MAX_SECONDS, restated because the web
 * bundle cannot import the daemon (test/unit/web-limits.test.ts holds the two equal).
 */
export const EPISODE_MAX_BYTES = 4_831_838_208;
export const EPISODE_MAX_SECONDS = 3 * 3600;

/** Bytes in binary gigabytes, as the limit is stated ("4.5 GB"). */
const gigabytes = (n: number) => `${(n / 2 ** 30).toFixed(1).replace(/\.0$/, "")} GB`;

/**
 * Why `file` cannot be an episode's or a transcript's source, or null when it may go up. `maxBytes`:
 * the largest file the upload takes; a larger one would only go up to be refused at the end.
 */
export async function refuseFile(file: Blob & { name: string }, maxBytes?: number): Promise<string | null> {
  if (file.size === 0) return `“${file.name}” is empty (0 bytes): choose the recording itself.`;
  if (maxBytes && file.size > maxBytes)
    return (
      `“${file.name}” is ${gigabytes(file.size)}; clipd takes files up to ${gigabytes(maxBytes)}. ` +
      `Export a smaller file (a lower bit rate, or audio only) and choose that.`
    );
  const ext = extensionOf(file.name);
  if (!(MEDIA_EXTENSIONS as readonly string[]).includes(ext))
    return (
      `“${file.name}” is not a video or audio file clipd takes. ` +
      `Choose one ending in ${MEDIA_EXTENSIONS.map((e) => e.slice(1)).join(", ")}.`
    );
  const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  if (!looksLikeMedia(head))
    return (
      `“${file.name}” is named like ${ext.slice(1).toUpperCase()} but does not ` +
      `start like one: it may be damaged or another kind of file.`
    );
  return null;
}
