/**
 * The domain's refusals: a few kinds, each with a code, a message and context fields, and none
 * with an HTTP status. The services throw them; facade/errors.ts is the one place that maps each
 * kind to a status with `instanceof`. Stages fail with `StageError` (daemon/engine/stage.ts),
 * user URLs with `NetRefusal` (daemon/net/public-url.ts, a `Refused`).
 */

/** Fields an error adds to the envelope beside its code and message (`field`, `limit`, …). */
export type ErrorContext = Record<string, unknown>;

export interface DomainErrorOptions {
  context?: ErrorContext;
  cause?: unknown;
}

/** What every domain refusal has: a stable code for the caller, a message, context. */
export abstract class DomainError extends Error {
  readonly context: ErrorContext;
  constructor(
    readonly code: string,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.context = opts.context ?? {};
  }
}

/** The thing asked for does not exist (or not for this caller). */
export class NotFound extends DomainError {}

/** The caller's own mistake: a bad field, an unreadable input, nothing to do. */
export class Refused extends DomainError {}

/** The request clashes with what is there now: busy, in progress, already exists, full. */
export class Conflict extends DomainError {}

/** The caller's credentials are not accepted (a key unknown, revoked or of the wrong kind). */
export class Unauthorized extends DomainError {}

/**
 * A limit of the service was reached. `size`: this input is too large; `quota`: the caller has used
 * its allowance for now (the context says when it resets); `capacity`: the service has none left
 * for anyone for now.
 */
export type LimitKind = "size" | "quota" | "capacity";

export class LimitReached extends DomainError {
  constructor(
    readonly limit: LimitKind,
    code: string,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(code, message, opts);
  }
}

export type PaymentCode = "plan_or_credit_required" | "credit_required" | "plan_required" | "balance_below_zero";

/** A refused spending call: how many cents were needed and how many the account has. */
export class PaymentRequired extends DomainError {
  declare readonly code: PaymentCode;
  constructor(
    code: PaymentCode,
    message: string,
    readonly neededCents: number,
    readonly creditCents: number,
    opts: { cause?: unknown } = {},
  ) {
    super(code, message, { context: { needed_cents: neededCents, credit_cents: creditCents }, cause: opts.cause });
  }
}
