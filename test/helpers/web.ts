// A browser-like client for the website's calls under /web: it keeps cookies, sends Origin and
// X-CSRF-Token on state-changing calls as the site's pages do, and signs up or in.
import { randomBytes } from "node:crypto";

export interface WebAnswer {
  status: number;
  body: any;
  headers: Headers;
  /** The Set-Cookie lines of this answer, as sent. */
  setCookies: string[];
}

export interface CallOptions {
  /** The Origin header: the server's own by default; null sends none. */
  origin?: string | null;
  /** The X-CSRF-Token header: the last token seen by default; null sends none. */
  csrf?: string | null;
  headers?: Record<string, string>;
}

export const randomEmail = (tag = "w") => `${tag}${Date.now()}${randomBytes(3).toString("hex")}@example.com`;
export const TEST_PASSWORD = "correct horse battery";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf?: string;
  email?: string;
  password?: string;

  /** `base` is the server's root URL (http://127.0.0.1:port). */
  constructor(readonly base: string) {}

  /** Calls `/web` + path (a path already under /web is taken as is). */
  async call(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<WebAnswer> {
    const url = `${this.base}${path.startsWith("/web/") ? path : `/web${path}`}`;
    const headers: Record<string, string> = {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    };
    if (this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
    if (STATE_CHANGING.has(method)) {
      const origin = opts.origin === undefined ? new URL(this.base).origin : opts.origin;
      if (origin !== null) headers.origin = origin;
      const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
      if (csrf) headers["x-csrf-token"] = csrf;
    }
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = decodeURIComponent(pair!.slice(eq + 1).trim());
      if (/max-age=0(;|$)/i.test(line) || value === "") {
        // A session cleared is a session ended, and its CSRF token with it.
        if (name === "clipd_session" && this.cookies.has(name)) this.csrf = undefined;
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
    if (parsed && typeof parsed === "object" && typeof parsed.csrf_token === "string") this.csrf = parsed.csrf_token;
    return { status: res.status, body: parsed, headers: res.headers, setCookies };
  }

  /** GET /web/api/v1/session: the CSRF token (and the clipd_csrf cookie when signed out). */
  session(): Promise<WebAnswer> {
    return this.call("GET", "/api/v1/session");
  }

  /** Signs up (a fresh address unless given) and keeps the session; throws unless 201. */
  async signUp(email = randomEmail(), password = TEST_PASSWORD): Promise<WebAnswer> {
    if (!this.csrf) await this.session();
    const a = await this.call("POST", "/api/v1/signup", { email, password });
    if (a.status !== 201) throw new Error(`sign-up answered ${a.status}: ${JSON.stringify(a.body)}`);
    this.email = email;
    this.password = password;
    return a;
  }

  /** Signs in (with the last sign-up's address and password unless given); returns the answer as is. */
  async signIn(email = this.email!, password = this.password!): Promise<WebAnswer> {
    if (!this.csrf) await this.session();
    const a = await this.call("POST", "/api/v1/signin", { email, password });
    if (a.status === 200) Object.assign(this, { email, password });
    return a;
  }

  async signOut(everywhere?: boolean): Promise<WebAnswer> {
    const a = await this.call("POST", "/api/v1/signout", everywhere === undefined ? {} : { everywhere });
    // The session's CSRF token died with it: a signed-out browser asks for a new one.
    this.csrf = undefined;
    return a;
  }

  /** Makes an API key through the keys page's call; returns the answer (201 with `key`). */
  createKey(
    input: { name?: string; mode?: "live" | "test"; scopes?: string[]; expires_in_days?: 30 | 90 | null } = {},
  ): Promise<WebAnswer> {
    return this.call("POST", "/api/v1/keys", {
      name: input.name ?? "test key",
      mode: input.mode ?? "live",
      scopes: input.scopes ?? ["clips.read"],
      expires_in_days: input.expires_in_days ?? null,
    });
  }
}
