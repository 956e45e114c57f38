/**
 * What a client may read of a failed step. A stage's error message often carries a tool's stderr
 * (ffmpeg names the files it was given, all under our work folders) and several lines of it; the
 * run's error is copied into episode, job and transcript records and into webhook payloads, so it
 * is cleaned once, where it is recorded (sql/fail-step.ts): absolute paths become their file name,
 * ffmpeg's `[demuxer @ 0x…]` tags go, and only the first meaningful line stays. The full text stays
 * in the step's own record (ops only) and in the log.
 */

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>|]+/gi;
// An absolute POSIX path (two segments or more), not inside a word; also the file: form.
const ABS_PATH = /(?<![\w.~-])(?:file:)?(?:\/[^\s/'"`:,;|()[\]]+){2,}/g;
const FFMPEG_TAG = /\[[\w#:.,-]+ @ 0x[0-9a-f]+\]\s*/gi;
const MAX = 300;

/** `message` fit for clients: no absolute paths, no pointer tags, one line of at most 300 characters. */
export function clientErrorMessage(message: string): string {
  // Links (the user's own) are kept whole: set them aside so their paths are not taken for files.
  const kept: string[] = [];
  let text = message.replace(URL_LIKE, (u) => `\u0001${kept.push(u) - 1}\u0001`);
  text = text.replace(ABS_PATH, (p) => p.split("/").pop() || "a file").replace(FFMPEG_TAG, "");
  // The first line that still says something; the runner joins stderr lines with " | ".
  const first =
    text
      .split(/\r?\n| \| /)
      .map((l) => l.trim())
      .find((l) => /[a-z]{2}/i.test(l.replace(/^[^:]*exited with code -?\d+:?/, ""))) ?? text.split(/\r?\n/)[0]!.trim();
  const line = first.replace(/\u0001(\d+)\u0001/g, (_, i: string) => kept[Number(i)]!);
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}
