/**
 * Access to the ops routes (admin, runs): the request needs the ops token as its Bearer, compared
 * by sha256 digest in constant time. There is no token-free way in: trusting loopback clients let
 * a reverse proxy on the same host expose account, key and credit creation. A server without
 * `server.ops_token` makes a token of its own in `<data_dir>/ops.token` (daemon/ops/ops-token.ts)
 * and hands it here as `opsToken`; an empty one here closes the routes.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Caller } from "./core/caller.js";
import { ApiError } from "./errors.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

const WHERE =
  "set server.ops_token (CLIPD_OPS_TOKEN), or, when it is not set, use the " +
  "token the server writes to ops.token in its data folder";

export function assertOps(caller: Pick<Caller, "bearer">, opsToken: string): void {
  if (!opsToken)
    throw new ApiError(401, "unauthorized", `ops routes are closed: this server has no ops token; ${WHERE}`, {
      field: "Authorization",
    });
  const given = caller.bearer ?? "";
  if (!given || !timingSafeEqual(digest(given), digest(opsToken))) {
    throw new ApiError(401, "unauthorized", `ops routes need the ops token as a Bearer token: ${WHERE}`, {
      field: "Authorization",
    });
  }
}
