/**
 * The website's account page (web-only): the account with its saved clip defaults, a password
 * change, and deleting the account. The rules live in daemon/web/.
 */
import { Type } from "@sinclair/typebox";
import { accountSummary, resetPasswordByEmail } from "../../daemon/web/users.js";
import { ApiError } from "../errors.js";
import { defineOperation, type Operation, type OperationContext } from "../registry.js";
import { ACCOUNT_SUMMARY, webOf } from "./web-session.js";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const password = Type.String({ minLength: 1, maxLength: 1024 });

/** The signed-in session's account and session id; the core has checked the session already. */
export function sessionOf(ctx: OperationContext): { accountId: string; sessionId: string } {
  const session = webOf(ctx).session;
  if (!ctx.auth || !session) throw new ApiError(401, "unauthorized", "sign in first");
  return { accountId: ctx.auth.account.id, sessionId: session.id };
}

const getAccount = defineOperation({
  id: "getAccount",
  method: "GET",
  path: "/api/v1/account",
  ...web,
  summary: "The signed-in account: e-mail, verified, plan, billing review and saved clip defaults",
  responses: {
    200: {
      description: "The account",
      schema: {
        type: "object",
        required: ["account", "clip_defaults"],
        properties: { account: ACCOUNT_SUMMARY, clip_defaults: { type: "object" } },
      },
    },
  },
  async handler(ctx) {
    const { accountId } = sessionOf(ctx);
    const s = ctx.services;
    const [account, clipDefaults] = await Promise.all([
      accountSummary(s.db, accountId),
      s.episodes.looks.defaults(s.db, accountId),
    ]);
    if (!account) throw new ApiError(401, "unauthorized", "this account no longer exists");
    return { account, clip_defaults: clipDefaults };
  },
});

const changePassword = defineOperation({
  id: "changePassword",
  method: "POST",
  path: "/api/v1/account/password",
  ...web,
  summary: "Change the password; the account's other sessions end",
  body: Type.Object({ current_password: password, new_password: password }, { additionalProperties: false }),
  responses: {
    200: { description: "Changed" },
    400: { description: "The new password's length" },
    401: { description: "invalid_credentials: current_password is wrong" },
  },
  async handler(ctx) {
    const { accountId, sessionId } = sessionOf(ctx);
    await ctx.services.web.users.changePassword(accountId, sessionId, ctx.body.current_password, ctx.body.new_password);
    return { changed: true };
  },
});

const deleteAccount = defineOperation({
  id: "deleteAccount",
  method: "DELETE",
  path: "/api/v1/account",
  ...web,
  summary: "Delete the account: keys revoked, webhooks off, sessions ended, data removed later",
  body: Type.Object({ password }, { additionalProperties: false }),
  responses: { 200: { description: "Deleted" }, 401: { description: "invalid_credentials: the password is wrong" } },
  async handler(ctx) {
    const { accountId } = sessionOf(ctx);
    const { removal_due_at } = await ctx.services.web.recovery.deleteAccount(accountId, ctx.body.password);
    webOf(ctx).set.session = null;
    return { deleted: true, data_removed_after: removal_due_at };
  },
});

/** `clipd account reset-password` against a running daemon that holds the embedded database (ops). */
export const adminResetPassword = defineOperation({
  id: "adminResetPassword",
  method: "POST",
  path: "/api/v1/admin/reset-password",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  summary: "Set an account's password and end its sessions (ops; clipd account reset-password)",
  body: Type.Object({ email: Type.String({ maxLength: 254 }), password }, { additionalProperties: false }),
  responses: { 200: { description: "Set" }, 404: { description: "No live account has the address" } },
  async handler({ body, services }) {
    const out = await resetPasswordByEmail(services.db, services.web.users, body.email, body.password);
    return { ...out, password_set: true, sessions_ended: true };
  },
});

export const WEB_ACCOUNT_OPERATIONS: Operation[] = [getAccount, changePassword, deleteAccount];
