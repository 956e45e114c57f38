/**
 * Access to the ops routes. With `server.ops_token` set, a request needs that token as its Bearer
 * (compared by sha256 digest in constant time). Without one, only loopback clients get in.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Caller } from "./core/caller.js";
import { ApiError } from "./errors.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function assertOps(caller: Pick<Caller, "bearer" | "clientAddr">, opsToken: string): void {
  if (opsToken) {
    const given = caller.bearer ?? "";
    if (!given || !timingSafeEqual(digest(given), digest(opsToken))) {
      throw new ApiError(401, "unauthorized", "ops routes need the ops token as a Bearer token (server.ops_token)");
    }
    return;
  }
  const ip = caller.clientAddr;
  if (!/^(127\.|::1$|::ffff:127\.)/.test(ip)) {
    throw new ApiError(403, "forbidden", "ops routes answer loopback clients only; set server.ops_token to reach them remotely");
  }
}
