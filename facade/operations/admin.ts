import { runAdmin, ADMIN_COMMANDS } from "../../daemon/account/admin.js";
import { defineOperation } from "../registry.js";

/** Lets `clipd account|key|credit …` reach a running daemon that holds the embedded database. */
export const adminCommand = defineOperation<{ command: string; args?: Record<string, unknown> }>({
  id: "adminCommand",
  method: "POST",
  path: "/api/v1/admin",
  summary: "Runs an admin command: account.create, key.create, key.revoke, credit.add (ops)",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  body: {
    type: "object",
    required: ["command"],
    additionalProperties: false,
    properties: { command: { enum: ADMIN_COMMANDS }, args: { type: "object" } },
  },
  responses: { 200: { description: "The command's result" }, 400: { description: "Bad arguments" } },
  async handler({ body, services }) {
    return runAdmin(services.accounts, body.command, body.args ?? {});
  },
});
