import { Type } from "@sinclair/typebox";
import { runAdmin, ADMIN_COMMANDS } from "../../daemon/account/admin.js";
import { anyObject, defineOperation, enumOf } from "../registry.js";

/** Lets `clipd account|key|credit …` reach a running daemon that holds the embedded database. */
export const adminCommand = defineOperation({
  id: "adminCommand",
  method: "POST",
  path: "/api/v1/admin",
  summary: "Runs an admin command: account.create, key.create, key.revoke, credit.add (ops)",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  body: Type.Object(
    {
      command: enumOf(ADMIN_COMMANDS),
      args: Type.Optional(anyObject()),
    },
    { additionalProperties: false },
  ),
  responses: { 200: { description: "The command's result" }, 400: { description: "Bad arguments" } },
  async handler({ body, services }) {
    return runAdmin(services.accounts, body.command, body.args ?? {});
  },
});
