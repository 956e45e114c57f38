/**
 * The Keys page's connected apps: the chat apps allowed through OAuth (the consent page), each with
 * the host it sends you back to, its scopes, when it was connected and last used, and its live
 * tokens. Disconnecting one revokes its grant and every token under it at once.
 */
import { useCallback, useEffect, useState } from "react";
import { call } from "../api";
import { ErrorText, handler, useAction, when } from "../ui";

interface Grant {
  id: string;
  client_name: string;
  redirect_host: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  tokens: Array<{ kind: "access" | "refresh"; expires_at: string }>;
  status: "active" | "revoked";
}

const REASONS: Record<string, string> = {
  user: "Disconnected",
  client: "Disconnected by the app",
  refresh_reuse: "Revoked: a refresh token was used twice",
  code_reuse: "Revoked: a code was used twice",
};

function tokensOf(g: Grant): string {
  if (g.status === "revoked") return "—";
  const access = g.tokens.filter((t) => t.kind === "access");
  const last = access.at(-1);
  return last ? `${access.length} access (until ${when(last.expires_at)})` : "none live; it refreshes on next use";
}

export function ConnectedApps() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const list = useAction();
  const act = useAction();
  const load = useCallback(
    () => list.run(async () => setGrants((await call<{ grants: Grant[] }>("GET", "/oauth/grants")).grants)),
    [list.run],
  );
  useEffect(() => void load(), [load]);
  async function disconnect(g: Grant) {
    if (!window.confirm(`Disconnect ${g.client_name}? It loses access at once.`)) return;
    if (await act.run(async () => (await call("DELETE", `/oauth/grants/${encodeURIComponent(g.id)}`), true)))
      await load();
  }
  return (
    <section aria-labelledby="apps-h">
      <h2 id="apps-h">Connected apps</h2>
      <p className="hint">
        Chat apps you allowed to use clipd’s tools (its MCP server at <code>/mcp</code>) through OAuth.
      </p>
      <ErrorText error={list.error ?? act.error} />
      {grants === null ? (
        <p className="loading">Loading apps…</p>
      ) : !grants.length ? (
        <p>No connected apps.</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Connected apps table">
          <table className="cards-sm">
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Returns to</th>
                <th scope="col">Scopes</th>
                <th scope="col">Connected</th>
                <th scope="col">Last used</th>
                <th scope="col">Tokens</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {grants.map((g) => (
                <tr key={g.id}>
                  <td data-label="App">{g.client_name}</td>
                  <td data-label="Returns to">{g.redirect_host}</td>
                  <td data-label="Scopes">{g.scopes.join(", ")}</td>
                  <td data-label="Connected">{when(g.created_at)}</td>
                  <td data-label="Last used">{when(g.last_used_at, "Never")}</td>
                  <td data-label="Tokens">{tokensOf(g)}</td>
                  <td data-label="Status">
                    <span className={`status status-${g.status}`}>
                      {g.status === "active" ? "Active" : (REASONS[g.revoked_reason ?? ""] ?? "Revoked")}
                    </span>
                  </td>
                  <td className="cell-action">
                    {g.status === "active" && (
                      <button
                        type="button"
                        className="danger small"
                        disabled={act.busy}
                        onClick={handler(() => disconnect(g))}
                        aria-label={`Disconnect ${g.client_name}`}
                      >
                        Disconnect
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
