/**
 * What counts as media in clipd: the accepted file extensions, the Content-Types a download may
 * carry, and a sniffer for the first bytes of a file. The sniffer only needs to tell "media
 * container we accept" from "web page or other document"; ffprobe does the real parsing later.
 */

export type MediaKind = "video" | "audio";

/**
 * The one table of accepted media formats. Per extension: its kind, the Content-Type clipd serves
 * it with, other Content-Types servers send for it, and the containers the byte sniffer may report
 * for it (families share containers: an .m4a is an MP4). Everything else here is derived from it.
 */
export const MEDIA_FORMATS: Readonly<
  Record<string, { kind: MediaKind; type: string; aliases?: string[]; containers: string[] }>
> = {
  ".mp4": { kind: "video", type: "video/mp4", containers: ["mp4", "mov"] },
  ".mov": { kind: "video", type: "video/quicktime", containers: ["mp4", "mov"] },
  ".m4v": { kind: "video", type: "video/x-m4v", containers: ["mp4", "mov"] },
  ".webm": { kind: "video", type: "video/webm", aliases: ["audio/webm"], containers: ["webm", "matroska"] },
  ".mkv": {
    kind: "video",
    type: "video/x-matroska",
    aliases: ["application/x-matroska"],
    containers: ["webm", "matroska"],
  },
  ".avi": { kind: "video", type: "video/x-msvideo", aliases: ["video/avi"], containers: ["avi"] },
  ".mp3": { kind: "audio", type: "audio/mpeg", aliases: ["audio/mp3"], containers: ["mp3"] },
  ".m4a": { kind: "audio", type: "audio/mp4", aliases: ["audio/x-m4a", "application/mp4"], containers: ["mp4", "mov"] },
  ".aac": { kind: "audio", type: "audio/aac", containers: ["aac", "mp4"] },
  ".wav": { kind: "audio", type: "audio/wav", aliases: ["audio/x-wav", "audio/wave"], containers: ["wav"] },
  ".ogg": { kind: "audio", type: "audio/ogg", aliases: ["application/ogg"], containers: ["ogg"] },
  ".opus": { kind: "audio", type: "audio/opus", containers: ["ogg"] },
  ".flac": { kind: "audio", type: "audio/flac", aliases: ["audio/x-flac", "application/x-flac"], containers: ["flac"] },
};

const extensionsOf = (kind: MediaKind) => Object.keys(MEDIA_FORMATS).filter((e) => MEDIA_FORMATS[e]!.kind === kind);
export const VIDEO_EXTENSIONS: readonly string[] = extensionsOf("video");
export const AUDIO_EXTENSIONS: readonly string[] = extensionsOf("audio");
export const MEDIA_EXTENSIONS: readonly string[] = [...VIDEO_EXTENSIONS, ...AUDIO_EXTENSIONS];

/** Lower-cased extension with its dot (".mp4"), or "" when the name has none. */
export function extensionOf(name: string): string {
  const base =
    name
      .replace(/[?#].*$/, "")
      .split(/[\\/]/)
      .pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** The kind an accepted extension stands for, or undefined when the extension is not accepted. */
export function kindOfExtension(nameOrExt: string): MediaKind | undefined {
  const ext = nameOrExt.startsWith(".") ? nameOrExt.toLowerCase() : extensionOf(nameOrExt);
  return MEDIA_FORMATS[ext]?.kind;
}

/** The bare media type of a Content-Type header: "Video/MP4; codecs=x" → "video/mp4". */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

const MEDIA_APPLICATION_TYPES = new Set(
  Object.values(MEDIA_FORMATS)
    .flatMap((f) => [f.type, ...(f.aliases ?? [])])
    .filter((t) => t.startsWith("application/")),
);
const AMBIGUOUS_TYPES = new Set([
  "",
  "application/octet-stream",
  "binary/octet-stream",
  "application/binary",
  "application/force-download",
  "application/download",
  "application/x-download",
]);
const PLAYLIST_TYPES = new Set([
  "application/vnd.apple.mpegurl",
  "application/x-mpegurl",
  "audio/mpegurl",
  "audio/x-mpegurl",
  "application/dash+xml",
  "audio/x-scpls",
]);

/**
 * What a Content-Type says: "media" (audio/*, video/*, application/ogg …), "ambiguous"
 * (missing or octet-stream: the bytes must decide), or "other" (a page, an image, a playlist …).
 */
export function classifyContentType(contentType: string | undefined): "media" | "ambiguous" | "other" {
  const t = mediaTypeOf(contentType);
  if (PLAYLIST_TYPES.has(t)) return "other";
  if (t.startsWith("audio/") || t.startsWith("video/") || MEDIA_APPLICATION_TYPES.has(t)) return "media";
  if (AMBIGUOUS_TYPES.has(t)) return "ambiguous";
  return "other";
}

export type Sniffed =
  | { kind: "media"; format: string; ext: string }
  | { kind: "html" }
  | { kind: "text" }
  | { kind: "unknown" };

/** How many leading bytes sniffMedia wants to see (it copes with fewer). */
export const SNIFF_BYTES = 512;

const ascii = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString("latin1");

/** Recognises accepted containers, HTML and plain text from a file's first bytes. */
export function sniffMedia(head: Buffer): Sniffed {
  const b = head;
  if (b.length >= 12 && ascii(b, 4, 8) === "ftyp") {
    const brand = ascii(b, 8, 12);
    if (brand === "qt  ") return { kind: "media", format: "mov", ext: ".mov" };
    if (brand.startsWith("M4A") || brand.startsWith("M4B")) return { kind: "media", format: "mp4", ext: ".m4a" };
    if (brand.startsWith("M4V")) return { kind: "media", format: "mp4", ext: ".m4v" };
    return { kind: "media", format: "mp4", ext: ".mp4" };
  }
  // QuickTime files written without an ftyp atom start straight with one of these.
  if (b.length >= 8 && ["moov", "mdat", "wide", "free", "skip", "pnot"].includes(ascii(b, 4, 8))) {
    return { kind: "media", format: "mov", ext: ".mov" };
  }
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) {
    return ascii(b, 0, 64).includes("webm")
      ? { kind: "media", format: "webm", ext: ".webm" }
      : { kind: "media", format: "matroska", ext: ".mkv" };
  }
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF") {
    const sub = ascii(b, 8, 12);
    if (sub === "WAVE") return { kind: "media", format: "wav", ext: ".wav" };
    if (sub === "AVI ") return { kind: "media", format: "avi", ext: ".avi" };
  }
  if (b.length >= 4 && ascii(b, 0, 4) === "OggS") {
    return ascii(b, 0, 128).includes("OpusHead")
      ? { kind: "media", format: "ogg", ext: ".opus" }
      : { kind: "media", format: "ogg", ext: ".ogg" };
  }
  if (b.length >= 4 && ascii(b, 0, 4) === "fLaC") return { kind: "media", format: "flac", ext: ".flac" };
  if (b.length >= 3 && ascii(b, 0, 3) === "ID3") return { kind: "media", format: "mp3", ext: ".mp3" };
  if (b.length >= 3 && b[0] === 0xff) {
    // ADTS (raw AAC): 12-bit sync, then MPEG version bit, then layer bits that are always 00.
    if ((b[1]! & 0xf6) === 0xf0) return { kind: "media", format: "aac", ext: ".aac" };
    // MPEG audio frame: 11-bit sync, a real layer, and a bitrate index that is not "bad".
    if ((b[1]! & 0xe0) === 0xe0 && ((b[1]! >> 1) & 3) !== 0 && b[2]! >> 4 !== 0xf) {
      return { kind: "media", format: "mp3", ext: ".mp3" };
    }
  }
  return looksLikeHtml(b) ? { kind: "html" } : looksLikeText(b) ? { kind: "text" } : { kind: "unknown" };
}

function looksLikeHtml(b: Buffer): boolean {
  const start = b
    .subarray(0, SNIFF_BYTES)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  return [
    "<!doctype html",
    "<html",
    "<head",
    "<body",
    "<!--",
    "<script",
    "<meta",
    "<title",
    "<iframe",
    "<div",
    "<p>",
    "<?xml",
  ].some((tag) => start.startsWith(tag));
}

/** Printable UTF-8 with no NULs and almost no control bytes: a document, not a binary file. */
function looksLikeText(b: Buffer): boolean {
  const head = b.subarray(0, SNIFF_BYTES);
  if (head.length === 0) return false;
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) control++;
  }
  if (control > head.length / 100) return false;
  // Invalid UTF-8 sequences decode to U+FFFD; binary data is full of them.
  const decoded = head.toString("utf8");
  const bad = decoded.split("\uFFFD").length - 1;
  return bad <= 2;
}

/** A likely extension for a media Content-Type, used when neither bytes nor URL say. */
export function extensionForContentType(contentType: string | undefined): string | undefined {
  const t = mediaTypeOf(contentType);
  return (
    Object.keys(MEDIA_FORMATS).find((e) => MEDIA_FORMATS[e]!.type === t) ??
    Object.keys(MEDIA_FORMATS).find((e) => MEDIA_FORMATS[e]!.aliases?.includes(t))
  );
}
