// Language detection for `language: auto`: the engine's report wins by majority, text is
// identified when an engine reports nothing, and an English-only model's language is its own.
import { describe, expect, it } from "vitest";
import { _iso1, detectLanguage, identifyText } from "../../plugins/transcribe/_language.js";

const FR =
  "Le temps est beau aujourd'hui, et nous allons parler de la façon dont " +
  "les petites équipes construisent des logiciels.";
const DE =
  "Das Wetter ist heute schön, und wir sprechen darüber, wie kleine Teams Software bauen, die Menschen gerne benutzen.";
const EN =
  "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";

describe("language detection", () => {
  it("identifies text in several languages as ISO 639-1 codes", async () => {
    expect(await identifyText(FR)).toBe("fr");
    expect(await identifyText(DE)).toBe("de");
    expect(await identifyText(EN)).toBe("en");
    expect(await _iso1("spa")).toBe("es");
    expect(await _iso1("sco")).toBe("sco"); // no two-letter code: kept as given
  });

  it("answers und for text too short to tell", async () => {
    expect(await identifyText("hello world")).toBe("und");
    expect(await identifyText("")).toBe("und");
  });

  it("prefers the engine's report, by majority over the chunks", async () => {
    expect(await detectLanguage({ reports: ["fr", undefined, "FR", "en"], text: EN })).toEqual({
      language: "fr",
      source: "engine",
    });
    expect(await detectLanguage({ reports: [undefined, undefined], text: DE })).toEqual({
      language: "de",
      source: "text",
    });
  });

  it("reports an English-only model's language as the model's, whatever its words look like", async () => {
    expect(await detectLanguage({ reports: ["en"], text: FR, fixedModelLanguage: "en" })).toEqual({
      language: "en",
      source: "model",
    });
  });
});
