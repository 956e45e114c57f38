// A FAKE Stripe API on loopback, for tests only: Stripe cannot run here. It implements just what
// clipd's adapter (daemon/payments/stripe.ts) calls, through the official `stripe` package pointed at
// it by payments.stripe_api_base:
// - POST /v1/customers, POST /v1/checkout/sessions, GET /v1/checkout/sessions[/{id}]
//   (the list filtered by payment_intent), with Stripe's form encoding and error shape;
// and it plays Stripe's side of the webhook: complete(), refund(), subscription() build the
// events Stripe would send and deliver them to clipd, signed with the endpoint secret by the
// official package's generateTestHeaderString (Stripe's documented t=…,v1=HMAC-SHA256 scheme).
// Every API request is recorded, so tests check what the adapter sent.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export interface FakeStripeRequest {
  method: string;
  path: string;
  auth?: string;
  idempotencyKey?: string;
  form: Record<string, any>;
}

/** Stripe's nested form keys (line_items[0][price_data][unit_amount]=1000) as objects. */
function parseForm(text: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let at = out;
    parts.forEach((p, i) => {
      if (i === parts.length - 1) at[p] = value;
      else at = at[p] ??= {};
    });
  }
  return out;
}

export interface FakeStripe {
  base: string;
  secret: string;
  requests: FakeStripeRequest[];
  sessions: Map<string, any>;
  /** Where events go (clipd's POST /webhooks/stripe). */
  target: string;
  /** The next `n` API requests answer `status` (Stripe's api_error shape). */
  failNext(n: number, status?: number): void;
  /** Marks a session paid as the buyer would, without telling clipd (its event may come late). */
  pay(sessionId: string): any;
  /** Stripe's event for a session paid: checkout.session.completed; gives the event and clipd's answer. */
  complete(sessionId: string, opts?: { type?: string }): Promise<Delivery>;
  /** charge.refunded for a paid pack session, `amountRefunded` in total so far. */
  refund(sessionId: string, amountRefunded: number): Promise<Delivery>;
  /** customer.subscription.updated (or .deleted) for a plan session's subscription. */
  subscription(sessionId: string, status: string, opts?: { deleted?: boolean; created?: number }): Promise<Delivery>;
  /** Sends any event; `sign` replaces the signature header (or leaves it out with null). */
  send(event: Record<string, any>, opts?: { sign?: string | null; secret?: string }): Promise<Delivery>;
  close(): Promise<void>;
}

export interface Delivery {
  event: Record<string, any>;
  status: number;
  body: any;
}

export async function startFakeStripe(opts: { secret?: string } = {}): Promise<FakeStripe> {
  const secret = opts.secret ?? "whsec_fake_endpoint_secret";
  const requests: FakeStripeRequest[] = [];
  const sessions = new Map<string, any>();
  let seq = 0;
  let failing = 0;
  let failStatus = 500;
  const next = (prefix: string) => `${prefix}_fake${String(++seq).padStart(6, "0")}`;
  const now = () => Math.floor(Date.now() / 1000);

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json", "request-id": next("req") });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse, what: string) =>
    answer(res, 404, {
      error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` },
    });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://fake");
    const form = parseForm(req.method === "GET" ? url.search.slice(1) : Buffer.concat(chunks).toString("utf8"));
    requests.push({
      method: req.method!,
      path: url.pathname,
      auth: req.headers.authorization,
      idempotencyKey: req.headers["idempotency-key"] as string | undefined,
      form,
    });
    if (failing > 0) {
      failing--;
      return answer(res, failStatus, { error: { type: "api_error", message: "the fake Stripe was told to fail" } });
    }
    if (req.method === "POST" && url.pathname === "/v1/customers") {
      return answer(res, 200, {
        id: next("cus"),
        object: "customer",
        email: form.email,
        metadata: form.metadata ?? {},
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const id = next("cs_test");
      const item = form.line_items?.["0"] ?? {};
      const session = {
        id,
        object: "checkout.session",
        mode: form.mode,
        status: "open",
        payment_status: "unpaid",
        customer: form.customer,
        client_reference_id: form.client_reference_id ?? null,
        metadata: form.metadata ?? {},
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        amount_total: item.price_data ? Number(item.price_data.unit_amount) : 1499,
        currency: "usd",
        payment_intent: null,
        subscription: null,
        url: `https://checkout.stripe.fake/c/pay/${id}`,
        line_items_sent: form.line_items,
      };
      sessions.set(id, session);
      return answer(res, 200, session);
    }
    if (req.method === "GET" && url.pathname === "/v1/checkout/sessions") {
      const data = [...sessions.values()].filter(
        (s) => !form.payment_intent || s.payment_intent === form.payment_intent,
      );
      return answer(res, 200, {
        object: "list",
        url: "/v1/checkout/sessions",
        has_more: false,
        data: data.slice(0, Number(form.limit ?? 10)),
      });
    }
    const one = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && one)
      return sessions.has(one[1]!)
        ? answer(res, 200, sessions.get(one[1]!))
        : notFound(res, `checkout.session: ${one[1]}`);
    return notFound(res, `route ${req.method} ${url.pathname} in the fake`);
  }

  const server = createServer(
    (req, res) =>
      void handle(req, res).catch((err) => answer(res, 500, { error: { type: "api_error", message: String(err) } })),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    base,
    secret,
    requests,
    sessions,
    target: "",
    failNext(n, status = 500) {
      failing = n;
      failStatus = status;
    },
    async send(event, o = {}) {
      const payload = JSON.stringify(event);
      const header =
        o.sign === undefined
          ? Stripe.webhooks.generateTestHeaderString({ payload, secret: o.secret ?? secret })
          : o.sign;
      const res = await fetch(fake.target, {
        method: "POST",
        headers: { "content-type": "application/json", ...(header === null ? {} : { "stripe-signature": header }) },
        body: payload,
      });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { event, status: res.status, body };
    },
    pay(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`the fake has no session ${sessionId}`);
      if (s.status !== "complete") {
        Object.assign(s, { status: "complete", payment_status: "paid" });
        if (s.mode === "payment") s.payment_intent = next("pi");
        else s.subscription = next("sub");
      }
      return s;
    },
    complete(sessionId, o = {}) {
      return fake.send(event(o.type ?? "checkout.session.completed", { ...fake.pay(sessionId) }));
    },
    refund(sessionId, amountRefunded) {
      const s = sessions.get(sessionId);
      if (!s?.payment_intent) throw new Error(`session ${sessionId} took no payment`);
      return fake.send(
        event("charge.refunded", {
          id: `ch_for_${s.payment_intent}`,
          object: "charge",
          amount: s.amount_total,
          amount_refunded: amountRefunded,
          refunded: amountRefunded >= s.amount_total,
          payment_intent: s.payment_intent,
          customer: s.customer,
        }),
      );
    },
    subscription(sessionId, status, o = {}) {
      const s = sessions.get(sessionId);
      if (!s?.subscription) throw new Error(`session ${sessionId} has no subscription`);
      const type = o.deleted ? "customer.subscription.deleted" : "customer.subscription.updated";
      return fake.send(
        event(
          type,
          {
            id: s.subscription,
            object: "subscription",
            customer: s.customer,
            status: o.deleted ? "canceled" : status,
            metadata: s.metadata,
          },
          o.created,
        ),
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const event = (type: string, object: Record<string, unknown>, created = now()) => ({
    id: next("evt"),
    object: "event",
    api_version: "2025-01-01",
    created,
    livemode: false,
    type,
    data: { object },
  });
  return fake;
}
