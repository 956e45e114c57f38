// Argument helpers shared by the CLI's commands.
import { parse as parseYaml } from "yaml";

export class UsageError extends Error {}

/** Parses --set key=value pairs; values are read as YAML scalars (numbers, booleans) or strings. */
export function parseSets(sets: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sets) {
    const i = s.indexOf("=");
    if (i <= 0) throw new UsageError(`--set needs key=value, got "${s}"`);
    const raw = s.slice(i + 1);
    let value: unknown = raw;
    try {
      value = parseYaml(raw);
    } catch {
      /* keep the string */
    }
    out[s.slice(0, i)] = value ?? raw;
  }
  return out;
}
