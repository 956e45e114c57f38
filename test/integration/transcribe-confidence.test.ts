// Word confidence from a real engine: pocketsphinx run on jfk.wav gives each word its posterior
// (the fourth column of `-time yes`), and the transcribe stage keeps it in the transcript's words.
import { describe, expect, it } from "vitest";
import { definePocketsphinxEngine } from "../../plugins/transcribe/engines/pocketsphinx.js";
import { fixtureMedia } from "../helpers/media.js";
import pino from "pino";

describe("pocketsphinx word confidence", () => {
  it("reads a posterior for each word of real output, 0–1, and not all the same", {
    timeout: 120_000,
  }, async () => {
    const signal = new AbortController().signal;
    const engine = definePocketsphinxEngine({ config: {}, log: pino({ level: "silent" }), signal });
    try {
      const r = await engine.transcribe({
        file: fixtureMedia("jfk.wav"),
        duration: 11,
        language: "en",
        threads: 1,
        signal,
      });
      expect(r.words.length).toBeGreaterThan(5);
      for (const w of r.words) {
        expect(w.confidence).toBeGreaterThanOrEqual(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
      }
      const cs = r.words.map((w) => w.confidence);
      // Posteriors differ word by word: some heard surely, some barely (the 0.5 bar titles and the censor use).
      expect(Math.max(...cs)).toBeGreaterThan(0.5);
      expect(Math.min(...cs)).toBeLessThan(0.5);
      // "country" in "what your country can do for you" is among the words it hears.
      expect(r.words.map((w) => w.text)).toContain("country");
    } finally {
      await engine.close();
    }
  });
});
