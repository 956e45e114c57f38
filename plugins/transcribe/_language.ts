/**
 * The language a transcript is in, when the stage runs with `language: auto`.
 *
 * Whisper (multilingual models) and OpenAI-compatible servers hear the language and report it;
 * their report wins, by majority over the chunks. When an engine that writes in the spoken
 * language reports nothing, the transcript's own text is identified (franc-min, trigram models of
 * 82 languages). PocketSphinx has only a US English model: whatever it hears comes out as English
 * words, so identifying its text would only echo the model, and its language is the model's.
 */

export type LanguageSource = "engine" | "text" | "model";

export interface DetectedLanguage {
  /** ISO 639-1 code where one exists (else ISO 639-3), or "und" when it could not be told. */
  language: string;
  /** How it was found: reported by the engine, identified from the text, or fixed by the model. */
  source: LanguageSource;
}

/** Fewer characters than this are too few to identify a language from text. */
const MIN_TEXT = 40;

// The trigram models and the code table load on first use, not with every process that loads the
// stage (the CLI and the daemon load all stages at start).
let libs: Promise<{ franc: typeof import("franc-min").franc; toIso1: Map<string, string> }> | undefined;
const loadLibs = () =>
  (libs ??= Promise.all([import("franc-min"), import("iso-639-3")]).then(([f, codes]) => ({
    franc: f.franc,
    toIso1: new Map(codes.iso6393.filter((l) => l.iso6391).map((l) => [l.iso6393, l.iso6391!])),
  })));

/** ISO 639-1 for an ISO 639-3 code when it has one ("fra" → "fr"), else the code as given. */
export async function _iso1(code: string): Promise<string> {
  return (await loadLibs()).toIso1.get(code) ?? code;
}

/** The language of `text` from its letters alone, or "und" when the text is too short to tell. */
export async function identifyText(text: string): Promise<string> {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length < MIN_TEXT) return "und";
  const code = (await loadLibs()).franc(clean, { minLength: MIN_TEXT });
  return code === "und" ? "und" : _iso1(code);
}

/** The most reported language over the chunks, or undefined when no chunk reported one. */
function majority(reports: Array<string | undefined>): string | undefined {
  const counts = new Map<string, number>();
  for (const r of reports) if (r) counts.set(r.toLowerCase(), (counts.get(r.toLowerCase()) ?? 0) + 1);
  let best: string | undefined;
  for (const [lang, n] of counts) if (best === undefined || n > counts.get(best)!) best = lang;
  return best;
}

/**
 * The language of a finished transcript. `fixedModelLanguage` is set for engines whose model knows
 * one language only (PocketSphinx: "en").
 */
export async function detectLanguage(input: {
  reports: Array<string | undefined>;
  text: string;
  fixedModelLanguage?: string;
}): Promise<DetectedLanguage> {
  if (input.fixedModelLanguage) return { language: input.fixedModelLanguage, source: "model" };
  const reported = majority(input.reports);
  if (reported) return { language: reported, source: "engine" };
  return { language: await identifyText(input.text), source: "text" };
}
