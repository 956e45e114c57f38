// autocannon measures for bench/api: a short warm-up, then the measure, at a fixed connection count.
import autocannon from "autocannon";

export const CONNECTIONS = 10;

export interface Row {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function measure(opts: autocannon.Options, seconds: number): Promise<Row> {
  await autocannon({ ...opts, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: seconds });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: number[]): number | undefined {
  if (!values.length) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1]! + s[mid]!) / 2;
}
