/**
 * Every refusal of the free transcription API (docs/free-api.md, "Limits and codes") in plain
 * words with its numbers, e.g. "This file is 14 minutes long; the limit without a key is 10
 * minutes." The numbers come from the refusal itself (the server's configuration), never from
 * here; FREE_LIMITS is only what the page says up front, the defaults an operator may change.
 */

/** A refusal as the API sends it: `error` of the envelope, or a failed poll's `error`. */
export interface FreeRefusal {
  code: string;
  message?: string;
  [field: string]: unknown;
}

/** The free tier's limits as the page states them before anything is sent. */
export type FreeLimits = Record<keyof typeof FREE_LIMITS, number>;

/**
 * The limits this clipd is configured with (GET /session's `free_limits`, snake_case), over the
 * defaults for an older server that does not send them.
 */
export function freeLimitsOf(session: { free_limits?: Record<string, number> }): FreeLimits {
  const given = session.free_limits ?? {};
  const camel = Object.fromEntries(
    Object.entries(given).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  );
  return { ...FREE_LIMITS, ...camel };
}

/** The free tier's default limits (config `free`). */
export const FREE_LIMITS = {
  anonMinutes: 10,
  anonPerDay: 1,
  keyMinutes: 90,
  keyPerDay: 2,
  maxMegabytes: 600,
  keysPerEmailPerDay: 3,
  audioDays: 7,
  textDays: 30,
} as const;

const plural = (n: number, one: string, many = one + "s") => `${n} ${n === 1 ? one : many}`;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** "14 minutes", "10 minutes 5 seconds", "1 hour 35 minutes". */
export function lengthWords(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const parts: string[] = [];
  if (h) parts.push(plural(h, "hour"));
  if (m) parts.push(plural(m, "minute"));
  if (rest && !h) parts.push(plural(rest, "second"));
  return parts.join(" ") || "0 seconds";
}

/** "600 MB", "1.2 GB": decimal units. */
export function sizeWords(bytes: number): string {
  if (bytes >= 1e9) return `${+(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

/** "in 5 hours 12 minutes", "in 3 days": how long until an ISO time; "later" when unreadable. */
export function untilWords(iso: unknown, now: number): string {
  const t = typeof iso === "string" ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return "later";
  const min = Math.max(1, Math.ceil((t - now) / 60_000));
  if (min < 60) return `in ${plural(min, "minute")}`;
  const h = Math.floor(min / 60);
  if (h < 48) return `in ${plural(h, "hour")}${min % 60 ? ` ${plural(min % 60, "minute")}` : ""}`;
  return `in ${plural(Math.round(h / 24), "day")}`;
}

/** One sentence (or two) for a refusal; `now` is for tests. */
export function freeRefusalText(e: FreeRefusal, now = Date.now()): string {
  const until = untilWords(e.resets_at, now);
  const limit = num(e.limit);
  const duration = num(e.duration_seconds);
  const max = num(e.max_duration_seconds);
  switch (e.code) {
    case "too_long_anon":
    case "too_long": {
      const tier = e.code === "too_long" ? "with a key" : "without a key";
      const head =
        duration !== null
          ? `This file is ${lengthWords(duration)} long; the limit ${tier} is `
          : `This file is longer than the limit ${tier}, `;
      const tail = e.code === "too_long_anon" ? " A free key allows longer files." : "";
      return `${head}${max !== null ? lengthWords(max) : "shorter"}.${tail}`;
    }
    case "too_big": {
      const cap = num(e.max_bytes);
      const size = num(e.size_bytes) ?? num(e.bytes);
      if (cap === null) return "This file is larger than the free tool takes.";
      return size !== null
        ? `This file is ${sizeWords(size)}; the largest file taken is ${sizeWords(cap)}.`
        : `This file is larger than ${sizeWords(cap)}, the largest file taken.`;
    }
    case "daily_limit":
      return (
        `Your free key has used its ${limit !== null ? plural(limit, "file") : "files"} ` +
        `for today. It can send more ${until} (days begin at midnight UTC).`
      );
    case "anon_daily_limit":
      return (
        `Without a key, ${limit !== null ? plural(limit, "file") : "a set number of files"} ` +
        `a day can be sent from one address, and this address has used ${limit === 1 ? "it" : "them"}. ` +
        `Try again ${until}, or create a free key for more.`
      );
    case "unmeasured_limit":
      return (
        "The file's server does not say how long the file is, and only " +
        `${limit !== null ? plural(limit, "such file") : "a few such files"} ` +
        `a day can be taken. Link to a server that sends the file's size, upload ` +
        `the file instead, or try again ${until}.`
      );
    case "unreadable":
      return (
        `That link does not lead straight to an audio or video file${e.message ? ` (${e.message})` : ""}. ` +
        `Link to the file itself, not to a page that plays it.`
      );
    case "bad_key":
      return (
        "Your saved free key was not accepted: it may have been revoked. Forget " +
        "it and create a new one, or go on without a key."
      );
    case "ceiling":
      return `The free tool has spent this month's budget. It opens again ${until}.`;
    case "anon_ceiling":
      return (
        `Transcription without a key has spent this month's share of the budget. ` +
        `A free key still works; or try again ${until}.`
      );
    case "key_limit":
      return (
        `This e-mail address has been given ${limit !== null ? plural(limit, "key") : "the most keys"} ` +
        `today, the most a day. Try again ${until}.`
      );
    case "no_speech":
      return "No speech was heard in this recording, so there is no text.";
    case "expired":
      return (
        `This transcription has been deleted: texts are kept ${FREE_LIMITS.textDays} ` +
        `days, recordings ${FREE_LIMITS.audioDays}.`
      );
    case "not_found":
      return "No transcription was found at this address. Check that the link is complete, with its token.";
    case "rate_limited": {
      const wait = num(e.retry_after);
      return (
        `Too many requests from this address. Wait ${wait !== null ? plural(Math.ceil(wait), "second") : "a moment"} ` +
        `and try again.`
      );
    }
    default:
      return e.message ? sentence(e.message) : `The free transcription did not work (${e.code}).`;
  }
}

/** The server's own message as a sentence: a capital first and a full stop last. */
function sentence(s: string): string {
  const t = s.trim();
  return (t.charAt(0).toUpperCase() + t.slice(1)).replace(/([^.!?])$/, "$1.");
}
