/**
 * Passwords: argon2id through @node-rs/argon2 (prebuilt binaries, OWASP's default cost: 19 MiB,
 * 2 passes, 1 lane). Only the PHC string is stored. `verifyOrDummy` checks against a fixed dummy
 * hash when there is no account, so a wrong e-mail costs the same time as a wrong password.
 */
import { hash, verify, type Options } from "@node-rs/argon2";
import { Refused } from "../domain/errors.js";
import { weakPasswordReason } from "./password-rules.js";

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

// Algorithm.Argon2id is a const enum in the binding's types; its value is 2.
const OPTIONS: Options = { algorithm: 2 as Options["algorithm"], memoryCost: 19456, timeCost: 2, parallelism: 1 };

let dummy: Promise<string> | undefined;

/**
 * Refuses a password outside 10–256 characters (invalid_request), or one on the common-password
 * list, repeated or a simple run (weak_password, password-rules.ts), naming the field.
 */
export function checkPassword(password: string, field = "password"): void {
  const n = [...password].length;
  if (n < PASSWORD_MIN || n > PASSWORD_MAX) {
    throw new Refused(
      "invalid_request",
      `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long (it has ${n})`,
      { context: { field, min: PASSWORD_MIN, max: PASSWORD_MAX } },
    );
  }
  const weak = weakPasswordReason(password);
  if (weak)
    throw new Refused("weak_password", `${field} is too easy to guess: ${weak}; choose another`, {
      context: { field },
    });
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** True when `password` matches `stored`; with no stored hash it still spends one verification and says false. */
export async function verifyOrDummy(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hash("clipd dummy password for timing", OPTIONS);
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
