/** Admin commands (until the website exists): accounts, keys and credit. Shared by the CLI and the ops route. */
import type { AccountService } from "./accounts.js";
import { Refused } from "../domain/errors.js";

export type AdminCommand = "account.create" | "key.create" | "key.revoke" | "credit.add";
export const ADMIN_COMMANDS: AdminCommand[] = ["account.create", "key.create", "key.revoke", "credit.add"];

function need(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (v === undefined || v === "" || v === true)
    throw new Refused("invalid_request", `--${name.replace(/_/g, "-")} is required`, { context: { field: name } });
  return String(v);
}

function int(args: Record<string, unknown>, name: string): number | undefined {
  if (args[name] === undefined) return undefined;
  const n = Number(args[name]);
  if (!Number.isInteger(n))
    throw new Refused("invalid_request", `--${name.replace(/_/g, "-")} must be a whole number`, {
      context: { field: name },
    });
  return n;
}

export async function runAdmin(
  accounts: AccountService,
  command: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  switch (command) {
    case "account.create": {
      const a = await accounts.createAccount({
        email: need(args, "email"),
        creditCents: int(args, "credit_cents"),
        plan: Boolean(args.plan),
      });
      return { account_id: a.id, email: a.email, plan: a.plan, credit_cents: a.credit_cents };
    }
    case "key.create": {
      const mode = need(args, "mode");
      if (mode !== "live" && mode !== "test")
        throw new Refused("invalid_request", "--mode must be live or test", { context: { field: "mode" } });
      const scopes = need(args, "scopes")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const { key, apiKey } = await accounts.createKey({
        accountId: need(args, "account"),
        mode,
        scopes,
        expiresInDays: int(args, "expires_in_days"),
      });
      return {
        key,
        key_id: apiKey.id,
        prefix: apiKey.prefix,
        mode: apiKey.mode,
        scopes: apiKey.scopes,
        expires_at: apiKey.expires_at,
      };
    }
    case "key.revoke": {
      const k = await accounts.revokeKey(need(args, "key_id"));
      return { key_id: k.id, revoked: true, revoked_at: k.revoked_at };
    }
    case "credit.add": {
      const a = await accounts.addCredit(need(args, "account"), int(args, "cents") ?? NaN);
      return { account_id: a.id, credit_cents: a.credit_cents };
    }
    default:
      throw new Refused("invalid_request", `unknown admin command "${command}" (known: ${ADMIN_COMMANDS.join(", ")})`, {
        context: { field: "command" },
      });
  }
}
