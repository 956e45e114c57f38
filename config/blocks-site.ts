/**
 * The configuration blocks for the website: sign-in sessions, mail and payments.
 * schema.ts assembles them into the one ConfigSchema.
 */
import { Type } from "@sinclair/typebox";
import { StringEnum } from "../daemon/engine/stage.js";
import { Key, Block, Str, Int, Num, Bool } from "./keys.js";

export const siteBlocks = {
  web: Block("The website (account console) and its sign-in sessions; see docs/website.md.", {
    enabled: Key(Bool(), true, "Serve the website at / and its calls under /web."),
    signup_open: Key(
      Bool(),
      true,
      "Anyone may make an account on the website. false: only the operator does " +
        "(`clipd account create`, then `clipd account reset-password`).",
      { env: "CLIPD_SIGNUP_OPEN" },
    ),
    session_idle_hours: Key(Num({ exclusiveMinimum: 0 }), 72, "A session unused this long ends, hours."),
    session_absolute_days: Key(
      Num({ exclusiveMinimum: 0 }),
      30,
      "A session ends this long after sign-in whatever its use, days.",
    ),
    secure_cookies: Key(
      StringEnum(["auto", "always", "never"]),
      "auto",
      "Mark cookies Secure: auto (when server.public_url or the request is https), always or never.",
    ),
    signin_attempts_per_address: Key(
      Int({ minimum: 1 }),
      10,
      "Failed sign-ins allowed per client address (all accounts together) in signin_window_minutes.",
    ),
    signin_free_attempts: Key(
      Int({ minimum: 1 }),
      5,
      "Failed sign-ins to one account from one client address before that pair must wait (back-off).",
    ),
    signin_backoff_seconds: Key(
      Num({ exclusiveMinimum: 0 }),
      30,
      "The first wait of an account and address past signin_free_attempts; " +
        "it doubles with each further failure, up to signin_window_minutes.",
    ),
    signin_attempts_per_account: Key(
      Int({ minimum: 1 }),
      100,
      "Ceiling on failed sign-ins to one account from all addresses in signin_window_minutes " +
        "(guessing from many addresses). " +
        "An address that signed in to the account in the last 30 days is not held by it.",
    ),
    signin_window_minutes: Key(Num({ exclusiveMinimum: 0 }), 15, "Window of the sign-in limits, minutes."),
    mails_per_account_per_hour: Key(
      Int({ minimum: 1 }),
      3,
      "Reset and verification mails to one account in an hour; more are not sent (reset still answers 202).",
    ),
    mails_per_address_per_hour: Key(
      Int({ minimum: 1 }),
      10,
      "Reset and verification mails asked for from one client address in an hour; more are not sent.",
    ),
    signups_per_address_per_day: Key(
      Int({ minimum: 1 }),
      5,
      "Sign-ups from one client address in 24 hours; more answer 429 signup_limit.",
    ),
    free_transcripts_unverified: Key(
      Bool(),
      false,
      "Accounts made by the website's sign-up get the monthly free transcripts " +
        "before their e-mail address is verified. " +
        "false: only once verified (accounts the operator made always get them).",
    ),
    account_removal_days: Key(Int({ minimum: 0 }), 30, "Days after deletion before an account's data is removed."),
  }),
  smtp: Block(
    "Outgoing mail (address checks and password reset links). Without a host, " +
      "e-mail is off and `clipd account reset-password` resets passwords.",
    {
      host: Key(Str(), "", "SMTP server host. Empty: e-mail is off.", { env: "CLIPD_SMTP_HOST" }),
      port: Key(Int({ minimum: 1, maximum: 65535 }), 587, "SMTP server port.", { env: "CLIPD_SMTP_PORT" }),
      secure: Key(
        Bool(),
        false,
        "Connect with TLS from the start (port 465); otherwise STARTTLS is used when offered.",
      ),
      user: Key(Str(), "", "SMTP user name. Empty: no login.", { env: "CLIPD_SMTP_USER" }),
      password: Key(Str(), "", "SMTP password.", { env: "CLIPD_SMTP_PASSWORD" }),
      from: Key(Str(), "clipd <no-reply@localhost>", "Sender of clipd's mails."),
    },
  ),
  payments: Block("How credit and the plan are bought on the website; see docs/website.md.", {
    provider: Key(
      StringEnum(["manual", "stripe"]),
      "manual",
      "manual: an operator adds credit with `clipd credit add`; stripe: Checkout and its webhook.",
      { env: "CLIPD_PAYMENTS" },
    ),
    packs_cents: Key(
      Type.Array(Int({ minimum: 1000 }), { minItems: 1 }),
      [1000, 2500, 5000, 10000],
      "Credit packs offered, cents (from $10).",
    ),
    plan_cents_per_month: Key(Int({ minimum: 0 }), 1499, "Price of the plan a month, cents."),
    stripe_secret_key: Key(Str(), "", "Stripe secret API key (sk_…).", { env: "STRIPE_SECRET_KEY" }),
    stripe_webhook_secret: Key(Str(), "", "Signing secret of the Stripe webhook endpoint (whsec_…).", {
      env: "STRIPE_WEBHOOK_SECRET",
    }),
    stripe_plan_price: Key(Str(), "", "Stripe price id of the monthly plan (price_…)."),
    stripe_api_base: Key(Str(), "", "Tests only: base URL of the Stripe API. Empty: Stripe's own."),
  }),
};
