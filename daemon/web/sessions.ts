/**
 * Server-side browser sessions. The cookie holds a random token; the database holds only its
 * sha256, so a copy of the table signs no one in. A session ends when unused for `idleHours`
 * (last_seen_at is written at most once a minute, so reads stay cheap) or `absoluteDays` after
 * sign-in, whatever its use. The CSRF token is a one-way derivation of the cookie's token: it
 * needs no column, is never stored, and changes with every new session (every sign-in).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db, Queryable } from "../store/db.js";

export interface SessionConfig {
  idleHours: number;
  absoluteDays: number;
}

export interface WebSession {
  id: string;
  account_id: string;
  created_at: string;
  expires_at: string;
  /** The token the browser must echo in X-CSRF-Token on state-changing calls. */
  csrf_token: string;
}

const TOUCH_EVERY_MS = 60_000;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

export const newToken = () => randomBytes(32).toString("base64url");
/** Exactly what newToken makes: 32 bytes in unpadded base64url. Anything else is no token of ours. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const isToken = (s: string): boolean => TOKEN.test(s);
export const tokenHash = sha256;

/** The session's CSRF token: one-way from its cookie token, so it reveals nothing of the cookie. */
export function csrfFor(sessionToken: string): string {
  return createHash("sha256").update("clipd-csrf\0").update(sessionToken).digest("base64url");
}

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly cfg: SessionConfig,
  ) {}

  /** Starts a session for the account; returns the cookie token (shown to no one else). */
  async create(accountId: string, q: Queryable = this.db): Promise<{ token: string; session: WebSession }> {
    const token = newToken();
    const id = randomUUID();
    const { rows } = await q.query(
      `insert into web_sessions (id, account_id, token_hash, expires_at) values ($1, $2, $3, now() + make_interval(secs => $4::float8 * 86400))
       returning created_at, expires_at`,
      [id, accountId, sha256(token), this.cfg.absoluteDays],
    );
    // Sessions nobody presents again are never found dead; now and then they are cleared in bulk.
    // (Through `q`: on PGlite an open transaction holds the one connection.)
    if (Math.random() < 0.02) await this.sweep(q);
    return {
      token,
      session: {
        id,
        account_id: accountId,
        created_at: iso(rows[0].created_at),
        expires_at: iso(rows[0].expires_at),
        csrf_token: csrfFor(token),
      },
    };
  }

  /**
   * The live session a cookie token stands for, or undefined (unknown, idle too long, past its end, account deleted).
   */
  async find(token: string | undefined): Promise<WebSession | undefined> {
    if (!token || !isToken(token)) return undefined;
    const { rows } = await this.db.query(
      `select s.id, s.account_id, s.created_at, s.expires_at, s.last_seen_at,
              (s.expires_at <= now() or s.last_seen_at <= now() - make_interval(secs => $2::float8 * 3600) or a.deleted_at is not null) as dead,
              (s.last_seen_at <= now() - make_interval(secs => $3::float8 / 1000)) as stale
         from web_sessions s join accounts a on a.id = s.account_id where s.token_hash = $1`,
      [sha256(token), this.cfg.idleHours, TOUCH_EVERY_MS],
    );
    const r = rows[0];
    if (!r) return undefined;
    if (r.dead) {
      await this.db.query(`delete from web_sessions where id = $1`, [r.id]);
      return undefined;
    }
    if (r.stale) await this.db.query(`update web_sessions set last_seen_at = now() where id = $1`, [r.id]);
    return {
      id: r.id,
      account_id: r.account_id,
      created_at: iso(r.created_at),
      expires_at: iso(r.expires_at),
      csrf_token: csrfFor(token),
    };
  }

  async end(sessionId: string): Promise<void> {
    await this.db.query(`delete from web_sessions where id = $1`, [sessionId]);
  }

  /** Ends every session of the account but `exceptId` (when given). */
  async endAll(accountId: string, exceptId?: string, q: Queryable = this.db): Promise<void> {
    await q.query(`delete from web_sessions where account_id = $1 and ($2::uuid is null or id <> $2::uuid)`, [
      accountId,
      exceptId ?? null,
    ]);
  }

  /** Ends sessions that can no longer be used; called now and then so the table stays small. */
  async sweep(q: Queryable = this.db): Promise<void> {
    await q.query(
      `delete from web_sessions where expires_at <= now() or last_seen_at <= ` +
        `now() - make_interval(secs => $1::float8 * 3600)`,
      [this.cfg.idleHours],
    );
  }
}
