// A loopback HTTP/1.1 proxy in front of clipd that can break one upload mid-body, as a dropped
// connection would: it reads each request's head to find where the body starts, forwards a chosen
// PUT's body only up to a byte count, then either cuts both sockets (the server keeps what
// arrived) or holds the rest back until the page gives up on it (a Cancel). Everything else passes
// through untouched. The browser talks to the proxy's origin, so clipd's upload links point at it.
import net from "node:net";

export interface PutRule {
  /** Picks the PUT by where its chunk starts (Content-Range's first byte; null for a whole PUT). */
  first: (first: number | null) => boolean;
  /** Body bytes forwarded before the cut or hold. */
  after: number;
  mode: "cut" | "hold";
  /** How many matching PUTs it breaks before it is spent (1 by default). */
  times?: number;
}

export interface CutProxy {
  url: string;
  /** Every upload request seen, in order: "HEAD", "PUT whole" or "PUT <first>-<last>/<total>". */
  log: string[];
  /** Arms one rule for the next matching upload PUTs; resolves when the first has been cut or held. */
  arm(rule: PutRule): Promise<{ range: string | null; forwarded: number }>;
  /** Drops every armed rule: what follows passes untouched. */
  disarm(): void;
  close(): Promise<void>;
}

interface Armed {
  rule: PutRule;
  left: number;
  fire: (v: { range: string | null; forwarded: number }) => void;
}

export async function startCutProxy(target: { host: string; port: number }): Promise<CutProxy> {
  const armed: Armed[] = [];
  const log: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let cutting = false;
    // While cutting, clipd's side is left to flush what was forwarded; it goes when clipd closes it.
    const end = () => (client.destroy(), cutting || upstream.destroy());
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    upstream.pipe(client);
    let head = Buffer.alloc(0);
    let bodyLeft = 0; // bytes of the current request's body still to pass
    let watch: { armed: Armed; range: string | null; sent: number } | null = null;
    let held = false;
    client.on("data", (data: Buffer) => {
      if (held) return; // the held request's bytes go nowhere; the page will abort it
      let rest = data;
      while (rest.length) {
        if (bodyLeft > 0) {
          let take = Math.min(bodyLeft, rest.length);
          if (watch) take = Math.min(take, watch.armed.rule.after - watch.sent);
          upstream.write(rest.subarray(0, take));
          bodyLeft -= take;
          rest = rest.subarray(take);
          if (watch) {
            watch.sent += take;
            if (watch.sent >= watch.armed.rule.after) {
              const { armed: a, range, sent } = watch;
              watch = null;
              held = true;
              // A cut: the browser's side goes at once and hears nothing more (not even clipd's
              // answer, as on a dropped line); clipd's side gets the forwarded bytes, flushed by
              // end() where destroy() would drop them. A hold waits for the browser to give up.
              if (a.rule.mode === "cut") {
                cutting = true;
                upstream.unpipe(client);
                upstream.resume();
                client.destroy();
                upstream.end();
              }
              a.fire({ range, forwarded: sent });
              return;
            }
          }
          continue;
        }
        head = Buffer.concat([head, rest]);
        rest = Buffer.alloc(0);
        const at = head.indexOf("\r\n\r\n");
        if (at < 0) return;
        const text = head.subarray(0, at).toString("latin1");
        upstream.write(head.subarray(0, at + 4));
        rest = head.subarray(at + 4);
        head = Buffer.alloc(0);
        const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(text)?.[1]?.trim() ?? null;
        bodyLeft = Number(header("content-length") ?? 0);
        if (/^HEAD \/api\/v1\/uploads\//.test(text)) log.push("HEAD");
        if (/^PUT \/api\/v1\/uploads\//.test(text)) {
          const range = header("content-range");
          log.push(range ? `PUT ${range.replace(/^bytes\s+/, "")}` : "PUT whole");
          const first = range === null ? null : Number(/bytes (\d+)-/.exec(range)?.[1] ?? NaN);
          const a = armed.find((x) => x.rule.first(first));
          if (a && --a.left === 0) armed.splice(armed.indexOf(a), 1);
          if (a) watch = { armed: a, range, sent: 0 };
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    arm: (rule) => new Promise((fire) => armed.push({ rule, left: rule.times ?? 1, fire })),
    disarm: () => void armed.splice(0),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
