// Gaps cut from a clip are confirmed against the audio. The recording is made here: a spoken phrase
// trimmed to its last sound, two seconds of silence, another phrase. The word times handed to the
// clip finder claim the first phrase ended 0.36 s before it did (as a recogniser can): cutting by
// word times alone would clip that speech, and the confirmed cut must keep it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { confirmClipGaps, measureFrames } from "../../plugins/find-clips/gaps.js";
import { confirmGaps, toPieces } from "../../plugins/find-clips/pieces.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "pieces-audio-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }).toString();

/** A phrase spoken by espeak-ng, trimmed of its silence at both ends, at 16 kHz mono; its length. */
function phrase(name: string, text: string): number {
  sh("espeak-ng", ["-w", `${name}-raw.wav`, text]);
  sh("sox", [
    `${name}-raw.wav`,
    "-r",
    "16000",
    "-c",
    "1",
    `${name}.wav`,
    "silence",
    "1",
    "0.01",
    "1%",
    "reverse",
    "silence",
    "1",
    "0.01",
    "1%",
    "reverse",
  ]);
  return Number(sh("soxi", ["-D", `${name}.wav`]).trim());
}

describe("gaps confirmed against the audio", () => {
  const first = phrase("a", "the price went up by forty percent");
  const second = phrase("b", "and nobody left");
  // Two seconds of digital silence between the phrases.
  sh("sox", ["-n", "-r", "16000", "-c", "1", "gap.wav", "trim", "0", "2"]);
  sh("sox", ["a.wav", "gap.wav", "b.wav", "episode.wav"]);
  const file = path.join(dir, "episode.wav");
  const speechEnd = first;
  const nextStart = first + 2;
  // The recogniser's times: the first phrase "ends" 0.36 s early.
  const words = [
    { text: "the", start: 0, end: 0.2 },
    { text: "percent", start: speechEnd - 0.9, end: speechEnd - 0.36 },
    { text: "and", start: nextStart, end: nextStart + 0.2 },
    { text: "left", start: nextStart + second - 0.4, end: nextStart + second },
  ];

  it("keeps the speech the word times missed, and still cuts the silence", async () => {
    const byWords = toPieces(words, { start: 0, end: nextStart + second });
    expect(byWords).toHaveLength(2);
    expect(byWords[0]!.end).toBeLessThan(speechEnd); // word times alone would clip the phrase
    const frames = await measureFrames(file, { start: 0, end: nextStart + second }, { workdir: dir });
    const pieces = confirmGaps(byWords, frames);
    expect(pieces).toHaveLength(2);
    expect(pieces[0]!.end).toBeGreaterThanOrEqual(speechEnd);
    expect(pieces[0]!.end).toBeLessThan(speechEnd + 0.2);
    expect(pieces[1]!.start).toBeLessThanOrEqual(nextStart);
    expect(pieces[1]!.start).toBeGreaterThan(nextStart - 0.3);
  });

  it("joins the pieces again where the audio holds no silence", async () => {
    // The same word times over a recording with no pause: the claimed gap is speech.
    sh("sox", ["a.wav", "b.wav", "a.wav", "b.wav", "solid.wav"]);
    const clip = {
      start: 0,
      end: nextStart + second,
      duration: 0,
      pieces: toPieces(words, { start: 0, end: nextStart + second }),
    };
    const [out] = await confirmClipGaps([clip], path.join(dir, "solid.wav"), { workdir: dir });
    expect(out!.pieces).toEqual([{ start: 0, end: clip.pieces.at(-1)!.end }]);
  });
});
