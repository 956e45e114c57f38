/**
 * The words of the MCP surface. Operations speak HTTP in their messages ("poll GET /api/v1/jobs/{id}",
 * "the Idempotency-Key header", field "id"); a model on the tool server acts on tool and argument
 * names instead. The phrase table is made from the registry, so it names exactly the tools there are.
 */
import { servedOn, type Operation } from "../registry.js";
import { argName, IDEMPOTENCY_ARG, toolName } from "./tools.js";

export interface ModelWords {
  /** A message with every `METHOD /path` of a tool replaced by the tool's name. */
  text(s: string): string;
  /** A field as an argument name: `id` of `op` becomes its named id, Idempotency-Key idempotency_key. */
  field(op: Operation, field: string): string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

export function modelWords(tools: Operation[]): ModelWords {
  const phrases = tools
    .filter((op) => servedOn(op, "api"))
    .flatMap((op) => {
      const name = toolName(op);
      // Messages write paths with and without the /api/v1 prefix, with {id} or a real id.
      const path = (p: string) =>
        p
          .split(/\{\w+\}/)
          .map(escapeRe)
          .join("(?:\\{\\w+\\}|[\\w.-]+)");
      return [op.path, op.path.replace(/^\/api\/v1/, "")].map((p) => ({
        re: new RegExp(`\\b${op.method} ${path(p)}(?![\\w/{])`, "g"),
        name,
        length: p.length,
      }));
    })
    // The longest paths first, so /episodes/{id}/clips is never read as /episodes/{id}.
    .sort((a, b) => b.length - a.length);
  return {
    text(s) {
      let out = s;
      for (const p of phrases) out = out.replace(p.re, p.name);
      // A model cannot sleep between polls: the tools that wait for it are what it should call.
      return (
        out
          .replace(/\bpoll get_(job|episode)\b/g, "call wait_for_$1")
          .replace(/\bthe Idempotency-Key header\b/g, `the ${IDEMPOTENCY_ARG} argument`)
          .replace(/\bIdempotency-Key\b/g, IDEMPOTENCY_ARG)
          // A tool has arguments, not a request's body, query or path: `body field "x"` is argument "x".
          .replace(/\b(?:body|query|path) field "/g, 'argument "')
          .replace(/^body names nothing\b/, "the call names nothing")
      );
    },
    field(op, field) {
      if (field === "Idempotency-Key") return IDEMPOTENCY_ARG;
      return field === "id" && op.params?.id ? argName(op, "id") : field;
    },
  };
}

/**
 * A tool's definition in the model's words: its description and every description in its schemas
 * name tools, not HTTP routes ("GET /api/v1/brand-kits" reads list_brand_kits).
 */
export function definitionInModelWords<T>(def: T, words: ModelWords): T {
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (typeof v === "string") return key === "description" ? words.text(v) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(def, undefined) as T;
}

/** `value` with its messages, hints and next steps in the model's words (and an error's field named as an argument). */
export function inModelWords(value: unknown, words: ModelWords, op: Operation): unknown {
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (typeof v === "string") return key === "field" ? words.field(op, v) : PROSE.test(key ?? "") ? words.text(v) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, undefined);
}

const PROSE = /^(message|hint|next_steps)$/;
