// A TCP proxy on loopback between the browser and clipd that breaks one upload connection part-way,
// as a flaky line would. It passes every byte through, reading only the request heads going up
// (HTTP/1.1 bodies are framed by Content-Length; the site's calls send no chunked bodies) so it
// knows where each upload PUT's body begins. Once armed, the first upload PUT whose chunk starts
// at or after `from` gets `after` body bytes through to clipd and then stalls: the proxy reads no
// more from the browser, so the page shows an upload standing part-way for as long as a test
// needs. `drop()` then destroys the browser's socket (it hears nothing more) and ends clipd's, so
// clipd sees a body that stops short and keeps what arrived. The page's origin is the proxy's, so
// upload links point at it.
import net from "node:net";

export interface Drop {
  /** The chunk's Content-Range as sent, e.g. "bytes 8388608-16777215/28394911". */
  range: string;
  /** Its first byte. */
  first: number;
  /** Body bytes clipd got before the drop. */
  forwarded: number;
}

export interface Stall extends Drop {
  /** Breaks the stalled connection. */
  drop(): void;
}

export interface DropProxy {
  url: string;
  /** Every upload request seen, in order: "HEAD" or "PUT <first>-<last>/<total>" ("PUT whole" without a range). */
  uploads: string[];
  /** Stalls the next upload PUT starting at byte `from` or later after `after` body bytes; resolves then. */
  stallOnce(from: number, after: number): Promise<Stall>;
  close(): Promise<void>;
}

const UPLOAD = /^(PUT|HEAD) \/api\/v1\/uploads\//;

/**
 * A whole request head at the start of `data` (its text, its bytes with the blank line, and what follows), or null
 * while it is still arriving.
 */
function takeHead(data: Buffer): { text: string; raw: Buffer; rest: Buffer } | null {
  const blank = data.indexOf("\r\n\r\n");
  if (blank < 0) return null;
  return {
    text: data.subarray(0, blank).toString("latin1"),
    raw: data.subarray(0, blank + 4),
    rest: data.subarray(blank + 4),
  };
}

export async function startDropProxy(target: { host: string; port: number }): Promise<DropProxy> {
  const uploads: string[] = [];
  let armed: { from: number; after: number; done: (s: Stall) => void } | null = null;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((browser) => {
    const clipd = net.connect(target.port, target.host);
    for (const s of [browser, clipd]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    let stalled = false;
    let dropping = false;
    browser.on("error", () => clipd.destroy()).on("close", () => dropping || clipd.destroy());
    clipd.on("error", () => browser.destroy()).on("close", () => browser.destroy());
    clipd.pipe(browser);

    let head = Buffer.alloc(0); // a request head still arriving
    let body = 0; // body bytes of the current request still to pass
    let cut: { drop: Drop; left: number; done: (s: Stall) => void } | null = null;
    browser.on("data", (data: Buffer) => {
      let rest = data;
      while (rest.length && !stalled) {
        if (body > 0) {
          const take = Math.min(body, rest.length, cut ? cut.left : Infinity);
          clipd.write(rest.subarray(0, take));
          body -= take;
          rest = rest.subarray(take);
          if (cut && (cut.left -= take) === 0) {
            stalled = true;
            browser.pause();
            // The drop: the browser hears nothing more (not even clipd's answer), and clipd reads
            // what was forwarded, then the end of the connection.
            const drop = () => {
              dropping = true;
              clipd.unpipe(browser);
              clipd.resume();
              browser.destroy();
              clipd.end();
            };
            cut.done({ ...cut.drop, drop });
          }
          continue;
        }
        const pending = Buffer.concat([head, rest]);
        const got = takeHead(pending);
        head = got ? Buffer.alloc(0) : pending;
        if (!got) return;
        clipd.write(got.raw);
        rest = got.rest;
        const text = got.text;
        const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.*?)[ \\t]*$`, "im").exec(text)?.[1] ?? null;
        body = Number(header("content-length") ?? 0);
        if (!UPLOAD.test(text)) continue;
        const range = header("content-range");
        uploads.push(text.startsWith("HEAD") ? "HEAD" : range ? `PUT ${range.replace(/^bytes\s+/, "")}` : "PUT whole");
        const first = range ? Number(/^bytes (\d+)-/.exec(range)?.[1]) : NaN;
        if (text.startsWith("PUT") && armed && range && first >= armed.from && body > armed.after) {
          cut = { drop: { range, first, forwarded: armed.after }, left: armed.after, done: armed.done };
          armed = null;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    uploads,
    stallOnce: (from, after) => new Promise((done) => void (armed = { from, after, done })),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
