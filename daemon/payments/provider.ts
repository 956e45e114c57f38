/**
 * How credit and the plan are bought: a payment provider, chosen by config `payments.provider`.
 * The billing page and its checkout call go through this interface only, so the site never knows
 * which provider is behind it. `manual` has no checkout (an operator adds credit with the CLI);
 * `stripe` sends the buyer to Stripe Checkout and learns the outcome from Stripe's webhook
 * (daemon/payments/stripe-events.ts).
 */
import type { Config } from "../../config/loader.js";

/** What a buyer asks to check out: a credit pack of `pack_cents`, or the monthly plan. */
export type CheckoutRequest = { kind: "pack"; cents: number } | { kind: "plan" };

/** Where the provider sends the buyer back to, and who is buying. */
export interface CheckoutContext {
  accountId: string;
  email: string;
  /** The site's origin; the provider returns the buyer to its billing page there. */
  siteOrigin: string;
}

/** A checkout the provider opened: where to send the buyer, and its id to remember. */
export interface OpenedCheckout {
  id: string;
  url: string;
  customerId: string;
}

/** How the billing page describes the provider. */
export interface ProviderView {
  name: "manual" | "stripe";
  packs_cents: number[];
  plan_cents_per_month: number;
  /** Whether the plan can be bought here (stripe with a plan price configured). */
  plan_checkout: boolean;
  /** manual only: what the operator runs to add credit. */
  instruction?: string;
}

export interface PaymentProvider {
  readonly name: "manual" | "stripe";
  view(accountId: string): ProviderView;
  /** Opens a checkout; `customerId` is the account's provider customer when one is known. */
  checkout(req: CheckoutRequest, ctx: CheckoutContext & { customerId?: string }): Promise<OpenedCheckout>;
}

export type PaymentsConfig = Config["payments"];

/** The operator's command that adds credit, as the manual provider and its refusals name it. */
export function creditCommand(accountId: string, cents?: number): string {
  return `clipd credit add --account ${accountId} --cents ${cents ?? "<cents>"}`;
}
