/**
 * SSRF bench: the whole vector table (test/chaos/ssrf-vectors.ts) against every user-URL field of
 * a real clipd server (network.allow_loopback off), then the redirect chains on a second server
 * with allow_loopback on; prints tried / held / lost per field, the target servers' connection
 * count, and every lost vector or refusal with another code than forbidden_address/invalid_url.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/ssrf.js
 *
 * Nothing needs the internet. Exits 1 when a vector was lost.
 */
import { runRedirects } from "../../test/chaos/ssrf-redirects.js";
import { runSsrfTable, ssrfFields, ssrfTable, summarize } from "../../test/chaos/ssrf-core.js";
import { startTargets } from "../../test/chaos/ssrf-targets.js";
import { redirectTargets, ssrfVectors } from "../../test/chaos/ssrf-vectors.js";
import { openChaosServer } from "../../test/chaos/server.js";

// The free API's daily allowances would answer 429 before the link is judged after the first try.
const FREE = { free: { files_per_day_anon: 1_000_000, files_per_day_key: 1_000_000, unmeasured_per_day: 1_000_000 } };
const started = Date.now();
const targets = await startTargets(redirectTargets);
let lost = 0;
try {
  const vectors = ssrfVectors(targets.ports);
  const server = await openChaosServer("pglite", FREE);
  try {
    const { live, test } = await server.account({ creditCents: 100_000 });
    const fields = ssrfFields(server, live, test);
    const results = await runSsrfTable(fields, vectors, targets);
    console.log(
      `\n## Request-time refusals (network.allow_loopback off): ${vectors.length} ` +
        `vectors × ${fields.length} fields\n\n${ssrfTable(summarize(results))}\n`,
    );
    for (const r of results.filter((r) => !r.held || r.hits))
      console.log(
        `LOST ${r.field} ${r.vector.url} → ${r.status} ${r.code ?? ""} field=${r.namedField ?? "-"} hits=${r.hits}`,
      );
    const codes = new Map<string, string[]>();
    for (const r of results.filter((r) => r.held && !r.codeOk))
      codes.set(`${r.field} ${r.code}`, [...(codes.get(`${r.field} ${r.code}`) ?? []), r.vector.url]);
    for (const [k, urls] of codes) console.log(`other code: ${k} (${urls.length}): ${urls.join("  ")}`);
    lost += results.filter((r) => !r.held || r.hits).length;
  } finally {
    await server.close();
  }

  const list = redirectTargets(targets.ports);
  const loopback = await openChaosServer("pglite", {
    ...FREE,
    network: { allow_loopback: true, extra_ca: targets.caPath },
  });
  try {
    const { live } = await loopback.account({ creditCents: 100_000 });
    const before = targets.hits();
    const results = await runRedirects(loopback, live, targets, list);
    const hits = targets.hits() - before;
    const rows = new Map<string, { tried: number; held: number }>();
    for (const r of results) {
      const row = rows.get(r.field) ?? { tried: 0, held: 0 };
      row.tried++;
      if (r.held) row.held++;
      rows.set(r.field, row);
    }
    console.log(
      `\n## Redirect chains (network.allow_loopback on): a loopback redirector ` +
        `302s to ${list.length} targets (the first 3 also through a chain of 2 hops)\n`,
    );
    console.log("| field | tried | held | lost |\n|---|---:|---:|---:|");
    for (const [field, row] of rows) console.log(`| ${field} | ${row.tried} | ${row.held} | ${row.tried - row.held} |`);
    console.log(
      `\ntarget connections during the redirect runs: ${hits}; redirector connections: ${targets.redirector.hits()}`,
    );
    for (const r of results.filter((r) => !r.held)) console.log(`LOST ${r.field} → ${r.target}: ${r.outcome}`);
    lost += results.filter((r) => !r.held).length + hits;
  } finally {
    await loopback.close();
  }
} finally {
  await targets.close();
}
console.log(`\nssrf: ${lost} lost; ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = lost ? 1 : 0;
