/** Parses "90", "90s", "500ms", "15m", "2h" into seconds. A bare number means seconds. */
export function toSeconds(value: string | number): number {
  if (typeof value === "number") return value;
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new RangeError(`"${value}" is not a duration (use e.g. 90s, 15m, 2h)`);
  const n = Number(m[1]);
  switch (m[2]) {
    case "ms":
      return n / 1000;
    case "m":
      return n * 60;
    case "h":
      return n * 3600;
    default:
      return n;
  }
}
