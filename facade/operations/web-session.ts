/**
 * The website's sign-in operations (web-only, docs/website.md): the session and its CSRF token,
 * sign-up, sign-in, sign-out, and the mail-link flows (forgotten password, reset, verification).
 * The rules live in daemon/web/; these shape answers and set cookies through WebCaller.set.
 */
import { randomBytes } from "node:crypto";
import { Type } from "@sinclair/typebox";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { PASSWORD_MAX, PASSWORD_MIN } from "../../daemon/web/passwords.js";
import { accountSummary, type SignedIn } from "../../daemon/web/users.js";
import type { WebCaller } from "../core/caller.js";
import { ApiError } from "../errors.js";
import { defineOperation, emptyBody, type Operation, type OperationContext } from "../registry.js";

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const email = Type.String({ minLength: 3, maxLength: 254 });
const password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: `${PASSWORD_MIN}–${PASSWORD_MAX} characters for a new password`,
});
export const ACCOUNT_SUMMARY: JsonSchema = {
  type: "object",
  required: ["id", "email", "email_verified", "plan", "billing_review"],
  properties: {
    id: str({ format: "uuid" }),
    email: str(),
    email_verified: { type: "boolean" },
    plan: { type: "boolean" },
    credit_cents: { type: "integer" },
    billing_review: { type: "boolean" },
    created_at: str(),
  },
};
const SESSION: JsonSchema = {
  type: "object",
  required: ["signed_in", "csrf_token", "email_enabled", "payments"],
  properties: {
    signed_in: { type: "boolean" },
    account: ACCOUNT_SUMMARY,
    csrf_token: str(),
    email_enabled: { type: "boolean" },
    signup_open: { type: "boolean" },
    payments: { type: "object" },
  },
};
// Counted against the client address's rate limit like any keyless API call: sign-up and
// sign-in hash passwords, so they are the calls most worth flooding.
const web = { surfaces: ["web" as const], tags: ["web"], rateLimited: true };
const credentials = Type.Object({ email, password }, { additionalProperties: false });

/** What the free page states up front, from the configured free tier (config `free`). */
function freeLimits(f: OperationContext["services"]["config"]["free"]) {
  return {
    anon_minutes: Math.floor(f.max_seconds_anon / 60),
    key_minutes: Math.floor(f.max_seconds_key / 60),
    anon_per_day: f.files_per_day_anon,
    key_per_day: f.files_per_day_key,
    max_megabytes: Math.floor(f.max_bytes / 1048576),
    keys_per_email_per_day: f.keys_per_email_per_day,
    audio_days: f.audio_retention_days,
    text_days: f.text_retention_days,
  };
}

/** The client address the web's limits count: X-Forwarded-For's first only behind a trusted proxy. */
export function clientAddrOf(ctx: OperationContext): string {
  const c = ctx.caller;
  return ctx.services.config.free.trust_proxy ? (c.forwardedAddr ?? c.clientAddr) : c.clientAddr;
}

export function webOf(ctx: OperationContext): WebCaller {
  if (!ctx.caller.web) throw new ApiError(404, "not_found", "this call is served only under /web");
  return ctx.caller.web;
}

/** Starts the browser's new session: the cookie, and the answer with its CSRF token. */
async function signedIn(ctx: OperationContext, made: SignedIn) {
  const w = webOf(ctx);
  w.set.session = { token: made.token, maxAgeSeconds: (Date.parse(made.session.expires_at) - Date.now()) / 1000 };
  return {
    signed_in: true,
    account: await accountSummary(ctx.services.db, made.account.id),
    csrf_token: made.session.csrf_token,
    ...(made.verification ? { verification_mail: made.verification } : {}),
  };
}

const getSession = defineOperation({
  id: "getSession",
  method: "GET",
  path: "/api/v1/session",
  ...web,
  scope: null,
  auth: "public",
  summary: "Whether the browser is signed in, its CSRF token, and what the site offers (e-mail, payments)",
  responses: { 200: { description: "The session", schema: SESSION } },
  async handler(ctx) {
    const w = webOf(ctx);
    const s = ctx.services;
    let csrf = w.session?.csrf_token ?? w.csrfCookie;
    if (!csrf) csrf = w.set.csrf = randomBytes(32).toString("base64url");
    const account = w.session ? await accountSummary(s.db, w.session.account_id) : undefined;
    const p = s.config.payments;
    return {
      signed_in: Boolean(account),
      ...(account ? { account } : {}),
      csrf_token: csrf,
      email_enabled: s.web.mailer.enabled,
      signup_open: s.config.web.signup_open,
      payments: { provider: p.provider, packs_cents: p.packs_cents, plan_cents_per_month: p.plan_cents_per_month },
      free_limits: freeLimits(s.config.free),
    };
  },
});

const signUp = defineOperation({
  id: "signUp",
  method: "POST",
  path: "/api/v1/signup",
  ...web,
  scope: null,
  auth: "public",
  summary: "Make an account with an e-mail address and a password, and sign in",
  body: credentials,
  responses: {
    201: { description: "Signed up and in" },
    403: { description: "signup_closed: the operator makes accounts" },
    400: { description: "Not an address; the password's length, or weak_password" },
    409: { description: "email_taken" },
    429: { description: "signup_limit: too many sign-ups from this address today, with retry_after" },
  },
  async handler(ctx) {
    const w = webOf(ctx);
    if (!ctx.services.config.web.signup_open) {
      throw new ApiError(
        403,
        "signup_closed",
        "this clipd does not take sign-ups; its operator makes accounts (clipd " +
          "account create) and sets their passwords (clipd account reset-password)",
        { field: "web.signup_open" },
      );
    }
    const made = await ctx.services.web.users.signUp({
      email: ctx.body.email,
      password: ctx.body.password,
      clientAddr: clientAddrOf(ctx),
    });
    if (w.session) await ctx.services.web.sessions.end(w.session.id);
    ctx.status = 201;
    return signedIn(ctx, made);
  },
});

const signIn = defineOperation({
  id: "signIn",
  method: "POST",
  path: "/api/v1/signin",
  ...web,
  scope: null,
  auth: "public",
  summary: "Sign in; a new session (and CSRF token) at every sign-in",
  body: credentials,
  responses: {
    200: { description: "Signed in" },
    401: { description: "invalid_credentials" },
    429: { description: "rate_limited, with retry_after" },
  },
  async handler(ctx) {
    const w = webOf(ctx);
    const made = await ctx.services.web.users.signIn({
      email: ctx.body.email,
      password: ctx.body.password,
      clientAddr: clientAddrOf(ctx),
      previous: w.session?.id,
    });
    return signedIn(ctx, made);
  },
});

const signOut = defineOperation({
  id: "signOut",
  method: "POST",
  path: "/api/v1/signout",
  ...web,
  scope: null,
  auth: "public",
  bodyRequired: false,
  summary: "Sign out this browser, or with everywhere: true every session of the account",
  body: Type.Object({ everywhere: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  responses: { 200: { description: "Signed out" } },
  async handler(ctx) {
    const w = webOf(ctx);
    const sessions = ctx.services.web.sessions;
    if (w.session && ctx.body.everywhere) await sessions.endAll(w.session.account_id);
    else if (w.session) await sessions.end(w.session.id);
    w.set.session = null;
    return { signed_in: false, ended: w.session ? (ctx.body.everywhere ? "everywhere" : "this session") : "none" };
  },
});

const forgotPassword = defineOperation({
  id: "forgotPassword",
  method: "POST",
  path: "/api/v1/password/forgot",
  ...web,
  scope: null,
  auth: "public",
  summary: "Mail a password reset link (202 whether or not the address is known)",
  body: Type.Object({ email }, { additionalProperties: false }),
  responses: {
    202: { description: "A link is mailed if the address has an account" },
    409: { description: "email_disabled: the operator resets passwords; mail_not_configured: no server.public_url" },
  },
  async handler(ctx) {
    webOf(ctx);
    await ctx.services.web.recovery.forgot(ctx.body.email, clientAddrOf(ctx));
    ctx.status = 202;
    return { accepted: true };
  },
});

const token = Type.String({ minLength: 1, maxLength: 200 });
const resetPassword = defineOperation({
  id: "resetPassword",
  method: "POST",
  path: "/api/v1/password/reset",
  ...web,
  scope: null,
  auth: "public",
  summary: "Set a new password from a reset link; ends every session of the account",
  body: Type.Object({ token, password }, { additionalProperties: false }),
  responses: {
    200: { description: "Password set; sign in with it" },
    400: { description: "invalid_token, or the password's length" },
  },
  async handler(ctx) {
    // Every session of the account ends; a cookie this browser still holds is cleared on its next call.
    await ctx.services.web.recovery.reset(ctx.body.token, ctx.body.password);
    return { reset: true };
  },
});

const verifyEmail = defineOperation({
  id: "verifyEmail",
  method: "POST",
  path: "/api/v1/email/verify",
  ...web,
  scope: null,
  auth: "public",
  summary: "Confirm the account's e-mail address from the mailed link",
  body: Type.Object({ token }, { additionalProperties: false }),
  responses: { 200: { description: "Verified" }, 400: { description: "invalid_token" } },
  async handler(ctx) {
    await ctx.services.web.recovery.verifyEmail(ctx.body.token);
    return { verified: true };
  },
});

const resendVerification = defineOperation({
  id: "resendVerification",
  method: "POST",
  path: "/api/v1/email/verify/resend",
  surfaces: ["web"],
  tags: ["web"],
  scope: null,
  auth: "session",
  bodyRequired: false,
  summary: "Mail the signed-in account a new verification link",
  body: emptyBody,
  responses: {
    202: { description: "Mailed" },
    409: { description: "already_verified, email_disabled, or mail_not_configured (no server.public_url)" },
    429: { description: "mail_limit: too many mails for this account or from this address, with retry_after" },
    502: { description: "mail_not_sent: the mail server refused it" },
  },
  async handler(ctx) {
    const session = webOf(ctx).session;
    if (!session) throw new ApiError(401, "unauthorized", "sign in first");
    if (!(await ctx.services.web.users.sendVerification(session.account_id, clientAddrOf(ctx))))
      throw new ApiError(502, "mail_not_sent", "the mail server did not take the verification mail; ask again later");
    ctx.status = 202;
    return { sent: true };
  },
});

export const WEB_SESSION_OPERATIONS: Operation[] = [
  resendVerification,
  getSession,
  signUp,
  signIn,
  signOut,
  forgotPassword,
  resetPassword,
  verifyEmail,
];
