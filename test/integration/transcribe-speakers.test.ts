// Speakers from a stereo source with one voice per channel, through the transcribe stage with
// pocketsphinx. The recording is made here: two espeak-ng voices taking turns, one panned hard
// left and one hard right; the same turns mixed to mono keep one speaker.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Transcript } from "../../daemon/render/captions.js";
import stage from "../../plugins/transcribe/index.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "speakers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });

// Turns: left voice, right voice, left voice; each followed by a second of silence.
const TURNS: Array<[string, "left" | "right", string]> = [
  ["t1", "left", "welcome back to the show today we talk about the price of bread"],
  ["t2", "right", "thank you the price of bread doubled in two years because flour costs more"],
  ["t3", "left", "so what should a small bakery do about that"],
];
for (const [name, side, text] of TURNS) {
  sh("espeak-ng", ["-v", side === "left" ? "en-us" : "en-gb+f3", "-w", `${name}-raw.wav`, text]);
  // Mono 16 kHz voice plus a second of silence, then placed on one side with the other silent.
  sh("sox", [`${name}-raw.wav`, "-r", "16000", "-c", "1", `${name}.wav`, "pad", "0", "1"]);
  sh("sox", [`${name}.wav`, `${name}-st.wav`, "remix", ...(side === "left" ? ["1", "0"] : ["0", "1"])]);
}
sh("sox", [...TURNS.map(([n]) => `${n}-st.wav`), "stereo.wav"]);
sh("sox", ["stereo.wav", "mono.wav", "remix", "1,2"]);

let ctx: TestStageCtx | undefined;
afterEach(async () => {
  await ctx?.cleanup();
  ctx = undefined;
});

async function transcribe(file: string): Promise<Transcript> {
  ctx = await makeStageCtx({ engine: "pocketsphinx" });
  const key = `runs/${ctx.runId}/source.wav`;
  await ctx.storage.putFile(key, path.join(dir, file));
  const out = await stage.run({ source: { key, name: file, bytes: 0 } }, ctx);
  return JSON.parse((await ctx.storage.read(out.transcript.key)).toString());
}

describe("transcribe: speakers by channel", () => {
  it("labels each word by the louder channel and starts a segment at each change", async () => {
    const t = await transcribe("stereo.wav");
    const turns: string[] = [];
    for (const w of t.words) if (turns.at(-1) !== w.speaker) turns.push(w.speaker!);
    expect(turns).toEqual(["S1", "S2", "S1"]);
    expect(t.segments.map((s) => s.speaker)).toContain("S2");
    for (const s of t.segments) {
      const [a, b] = s.words;
      expect(new Set(t.words.slice(a, b).map((w) => w.speaker))).toEqual(new Set([s.speaker]));
    }
  });

  it("keeps one speaker for the same turns in mono", async () => {
    const t = await transcribe("mono.wav");
    expect(t.words.every((w) => w.speaker === undefined)).toBe(true);
    expect(new Set(t.segments.map((s) => s.speaker))).toEqual(new Set(["S1"]));
  });
});
