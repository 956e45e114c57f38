/**
 * A webhook's recent deliveries as settings pages and the API show them: each with every attempt,
 * and a summary (attempt count, the last answer's code and body, the exact body sent) cut short so
 * a page of ten stays small whatever the receiver answered.
 */
import type { Queryable } from "../store/db.js";
import { isoColumn } from "../store/_columns.js";
import * as courier from "../delivery/courier.js";

/** How much of a delivery's request and response body the list shows. */
export const SHOWN_BODY_CHARS = 1024;
const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The last `limit` deliveries of a webhook, newest first. */
export async function recentDeliveries(db: Queryable, webhookId: string, limit: number) {
  const { rows } = await db.query(
    `select * from deliveries where webhook_id = $1 order by created_at desc, id limit $2`,
    [webhookId, limit],
  );
  const attempts = await courier.attemptsOf(
    db,
    // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
    rows.map((r: any) => r.id),
  );
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  return rows.map((r: any) => {
    const tried = attempts.get(r.id) ?? [];
    const last = tried[tried.length - 1];
    return {
      id: r.id as string,
      event: r.event_type as string,
      test: r.event_id === null,
      status: r.status as string,
      created_at: isoColumn(r.created_at) as string,
      next_attempt_at: r.status === "pending" ? (isoColumn(r.next_attempt_at) as string | null) : null,
      // A summary for settings pages: the last attempt's answer and the exact body sent, cut short.
      attempt_count: tried.length,
      response_code: last?.status_code ?? null,
      request_body: truncate(r.payload as string, SHOWN_BODY_CHARS),
      response_body: last?.response == null ? null : truncate(last.response, SHOWN_BODY_CHARS),
      attempts: tried,
    };
  });
}
