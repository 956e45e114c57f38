/**
 * The manual provider, the default for a self-hosted clipd: nothing is sold on the site. An
 * operator adds credit with `clipd credit add` (daemon/account/admin.ts) and turns the plan on
 * when creating the account; the billing page shows the command, and a checkout is refused.
 */
import { Conflict } from "../domain/errors.js";
import { creditCommand, type PaymentProvider, type PaymentsConfig, type ProviderView } from "./provider.js";

export class ManualProvider implements PaymentProvider {
  readonly name = "manual" as const;

  constructor(private readonly config: PaymentsConfig) {}

  view(accountId: string): ProviderView {
    return {
      name: this.name,
      packs_cents: [...this.config.packs_cents],
      plan_cents_per_month: this.config.plan_cents_per_month,
      plan_checkout: false,
      instruction: `Credit is added by the operator of this clipd: ask them to run \`${creditCommand(accountId)}\`.`,
    };
  }

  async checkout(_req: unknown, ctx: { accountId: string }): Promise<never> {
    throw new Conflict(
      "manual_provider",
      `this clipd sells no credit online (payments.provider is manual); its operator ` +
        `adds credit with \`${creditCommand(ctx.accountId)}\``,
      {
        context: { provider: this.name, command: creditCommand(ctx.accountId) },
      },
    );
  }
}
