/**
 * Redirect chains: the first hop is a loopback https redirector, admitted because the server runs
 * with network.allow_loopback on (the target servers are on loopback too); it 302s to a private
 * target, which must be refused at that hop. The free API fetches at request time (it measures
 * the file), a webhook's test delivery too; episodes and transcripts fetch in their run, so their
 * runs are waited for and must end failed. Through it all the targets must see no connection.
 */
import { waitFor } from "../helpers/wait.js";
import { postJson } from "./ssrf-core.js";
import type { ChaosServer } from "./server.js";
import type { Targets } from "./ssrf-targets.js";

export interface RedirectResult {
  field: string;
  target: string;
  /** What became of it: the refusal's code, the run's final status and error code, or the delivery. */
  outcome: string;
  held: boolean;
}

async function getJson(base: string, path: string, bearer: string): Promise<any> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
  return res.json();
}

async function del(base: string, path: string, bearer: string): Promise<void> {
  await fetch(`${base}${path}`, { method: "DELETE", headers: { authorization: `Bearer ${bearer}` } }).then((r) =>
    r.arrayBuffer(),
  );
}

/** Each target behind the redirector, in every field that fetches; `live` has credit. */
export async function runRedirects(
  server: ChaosServer,
  live: string,
  targets: Targets,
  list: string[],
): Promise<RedirectResult[]> {
  const b = server.base;
  const results: RedirectResult[] = [];
  const runs: Array<{ field: string; target: string; path: string }> = [];
  // Every target after one hop, and the first few after a chain of two.
  const tries = [
    ...list.map((target, n) => ({ target, url: targets.redirector.url(n) })),
    ...list.slice(0, 3).map((target, n) => ({ target: `2 hops → ${target}`, url: targets.redirector.url(n, 2) })),
  ];
  for (const { target, url } of tries) {
    const free = await postJson(b, "/api/v1/transcribe", { url });
    const freeHeld = free.status >= 400 && free.status < 500 && free.body?.error?.field === "url";
    results.push({
      field: "transcribe.url",
      target,
      outcome: `${free.status} ${free.body?.error?.code ?? ""}`,
      held: freeHeld,
    });

    const hook = await postJson(b, "/api/v1/webhooks", { url }, live);
    if (hook.status === 201) {
      const sent = await postJson(b, `/api/v1/webhooks/${hook.body.id}/test`, {}, live);
      results.push({
        field: "webhooks.url (test delivery)",
        target,
        outcome: `delivered=${sent.body?.delivered} status=${sent.body?.status}`,
        held: sent.status === 200 && sent.body?.delivered === false,
      });
      await del(b, `/api/v1/webhooks/${hook.body.id}`, live);
    } else {
      results.push({
        field: "webhooks.url (test delivery)",
        target,
        outcome: `create answered ${hook.status} ${hook.body?.error?.code ?? ""}`,
        held: false,
      });
    }

    const transcript = await postJson(b, "/api/v1/transcripts", { url }, live);
    if (transcript.body?.id)
      runs.push({ field: "transcripts.url", target, path: `/api/v1/transcripts/${transcript.body.id}` });
    else
      results.push({
        field: "transcripts.url",
        target,
        outcome: `create answered ${transcript.status} ${transcript.body?.error?.code ?? ""}`,
        held: false,
      });

    const episode = await postJson(b, "/api/v1/episodes", { source_url: url }, live);
    if (episode.body?.episode_id)
      runs.push({ field: "episodes.source_url", target, path: `/api/v1/episodes/${episode.body.episode_id}` });
    else
      results.push({
        field: "episodes.source_url",
        target,
        outcome: `create answered ${episode.status} ${episode.body?.error?.code ?? ""}`,
        held: false,
      });
  }
  // The runs fetch on their own; each must end failed (its fetch refused at the redirect).
  for (const r of runs) {
    const final = await waitFor(
      async () => {
        const v = await getJson(b, r.path, live);
        return ["failed", "completed", "ready"].includes(v.status) ? v : undefined;
      },
      { what: `${r.field} run for a redirect to ${r.target}`, timeoutMs: 120_000, intervalMs: 200 },
    );
    const code = final.error?.code ?? final.failure?.code ?? "";
    results.push({
      field: r.field,
      target: r.target,
      outcome: `${final.status} ${code}`.trim(),
      held: final.status === "failed",
    });
  }
  return results;
}
