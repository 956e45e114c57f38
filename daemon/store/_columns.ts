/**
 * Column values as both drivers hand them over: node-postgres parses jsonb and timestamptz, while
 * some PGlite paths and older rows give strings. Services read rows through these two.
 */

/** A json/jsonb column: parsed when it arrives as text, else as given (null stays null). */
// biome-ignore lint/suspicious/noExplicitAny: a decoded column takes its row field's type
export const jsonColumn = (v: unknown): any => (typeof v === "string" ? JSON.parse(v) : v);

/** A timestamp column as an ISO string (null stays null). */
// biome-ignore lint/suspicious/noExplicitAny: a decoded column takes its row field's type
export const isoColumn = (v: unknown): any => (v instanceof Date ? v.toISOString() : v);
