/** An address's last deliveries: one row each, with the bodies sent and received behind a toggle. */
import type { Delivery } from "../types";
import { when } from "../ui";

/** JSON laid out for reading when it parses whole; a body cut at 1 KB is shown as it came. */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const STATUS: Record<Delivery["status"], string> = { pending: "Retrying", delivered: "Delivered", failed: "Failed" };

export function Deliveries({ list }: { list: Delivery[] }) {
  if (!list.length) return <p className="hint">No deliveries yet.</p>;
  return (
    <div className="deliveries">
      <h4>Last deliveries</h4>
      <ul className="delivery-list">
        {list.slice(0, 10).map((d) => {
          const code = d.response_code ?? d.attempts.at(-1)?.status_code ?? null;
          const attempts = d.attempt_count ?? d.attempts.length;
          return (
            <li key={d.id} className="delivery">
              <details>
                <summary>
                  <span className="d-event">
                    {d.event}
                    {d.test ? " (test)" : ""}
                  </span>
                  <span className="d-time">{when(d.created_at)}</span>
                  <span className={`badge badge-${d.status}`}>{STATUS[d.status] ?? d.status}</span>
                  <span className="d-code">{code === null ? "no answer" : `HTTP ${code}`}</span>
                  <span className="d-attempts">
                    {attempts} {attempts === 1 ? "attempt" : "attempts"}
                  </span>
                </summary>
                <div className="bodies">
                  <div>
                    <h5>Request body</h5>
                    <pre tabIndex={0}>{d.request_body ? readable(d.request_body) : "(not kept)"}</pre>
                  </div>
                  <div>
                    <h5>Response body</h5>
                    <pre tabIndex={0}>
                      {d.response_body ? readable(d.response_body) : (d.attempts.at(-1)?.error ?? "(none)")}
                    </pre>
                  </div>
                </div>
              </details>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
