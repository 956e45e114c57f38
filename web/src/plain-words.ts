/**
 * A refusal in a creator's words (issue 36). The API names fields as a developer does
 * (`body field "cues.1.text" must NOT have fewer than 1 characters`), which is right for a program
 * and wrong for a person on the site. Only messages in that form are rewritten here, from the
 * field the refusal names and the checker's phrase; every other message is the server's own
 * sentence and passes unchanged.
 */

/** What the site calls each field a request may name (the last part of its path, or the whole path). */
const FIELDS: Record<string, string> = {
  source_url: "The link",
  url: "The address",
  file_name: "The file’s name",
  name: "The name",
  about: "“Find clips about”",
  brief: "The topic to look for",
  target_seconds: "The target clip length",
  content_type: "The content type",
  text: "The words of a caption",
  emphasis: "A caption’s highlighted words",
  cues: "The captions",
  pieces: "The clip’s start and end",
  start: "The clip’s start",
  end: "The clip’s end",
  style: "The caption style",
  brand_kit: "The brand kit",
  hook_title: "The hook title",
  caption_size: "The caption size",
  caption_position: "The caption position",
  background: "The background",
  fit: "The fit",
  aspect_ratio: "The shape",
  email: "The e-mail address",
  password: "The password",
  new_password: "The new password",
  current_password: "Your current password",
  events: "The events",
  clips: "The chosen clips",
};

/** A field path (`cues.1.text`, `look.style`) in words: its own name when known, else its last part spelled out. */
export function fieldWords(field: string): string {
  if (FIELDS[field]) return FIELDS[field];
  const parts = field.split(".").filter((p) => !/^\d+$/.test(p));
  const last = parts.at(-1) ?? field;
  if (FIELDS[last]) return FIELDS[last];
  return `The ${last.replace(/_/g, " ")}`;
}

/** The checker's phrase as a person says it. */
const PHRASES: Array<[RegExp, (...m: string[]) => string]> = [
  [/^must NOT have fewer than 1 characters?$/, () => "cannot be empty"],
  [/^must NOT have fewer than (\d+) characters$/, (n) => `needs at least ${n} characters`],
  [/^must NOT have more than (\d+) characters$/, (n) => `can be at most ${n} characters long`],
  [/^must NOT have fewer than (\d+) items?$/, (n) => `needs at least ${n}`],
  [/^must NOT have more than (\d+) items$/, (n) => `can have at most ${n}`],
  [/^must be <= (\S+)$/, (n) => `can be at most ${n}`],
  [/^must be >= (\S+)$/, (n) => `must be at least ${n}`],
  [/^must be < (\S+)$/, (n) => `must be under ${n}`],
  [/^must be > (\S+)$/, (n) => `must be over ${n}`],
  [/^must be (integer|number)$/, () => "must be a number"],
  [/^must be string$/, () => "must be text"],
  [/^must be boolean$/, () => "must be yes or no"],
  [/^must match pattern .*$/s, () => "is not in a form clipd takes"],
  [/^must match format "([^"]+)"$/, (f) => `is not a valid ${f.replace(/-/g, " ")}`],
  [/^is required$/, () => "is missing"],
  [/^is not allowed$/, () => "cannot be set here"],
  [/^must be an absolute https:\/\/ URL$/, () => "must start with https:// (a full link to the file)"],
];

const sentence = (s: string) => {
  const t = s.trim();
  const up = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(up) ? up : `${up}.`;
};

/** A clause that sends the reader to an API route ("; list them with GET /api/v1/brand-kits"): not for the site. */
const ROUTE_CLAUSE = /[;,]?\s*[^;,.]*\b(?:GET|POST|PUT|PATCH|DELETE) \/api\/v1\/[^\s;,.]*[^;.]*/g;

const UUID = /\s[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** `message` in plain words when it is in the API's field form, else unchanged. */
export function plainWords(message: string): string {
  const m = /^(?:body|query|path) field "([^"]*)"(:)? ?(.*)$/s.exec(message);
  if (!m) {
    const whole = /^(?:body|query) (must .*)$/s.exec(message);
    if (whole && /fewer than 1 properties/.test(whole[1]!)) return "Nothing to save: change something first.";
    return whole ? sentence(`The request ${whole[1]}`) : message;
  }
  const [, field = "", colon, rest = ""] = m;
  const who = fieldWords(field);
  // An id says nothing to a person ("no brand kit 7c72…-… on this account"): the field already names the thing.
  if (colon) return `${who}: ${sentence(rest.replace(ROUTE_CLAUSE, "").replace(UUID, ""))}`;
  for (const [re, say] of PHRASES) {
    const hit = re.exec(rest);
    if (hit) return sentence(`${who} ${say(...hit.slice(1))}`);
  }
  return sentence(`${who} ${rest}`);
}
