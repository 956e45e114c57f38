/**
 * SSRF protection for every URL a user hands us (source links now, webhooks later).
 *
 * Guarantees of guardedFetch:
 * - Only https, except plain http to loopback when the tests-only `allowLoopback` switch is on.
 * - The host is resolved here, and EVERY address it resolves to must be public; the connection
 *   then goes to that checked address (a pinned `lookup`), so a second DNS answer cannot swap in a
 *   private one (DNS rebinding). TLS still verifies the certificate for the hostname (SNI/Host).
 * - Redirects are followed by hand, each hop checked the same way, at most `maxRedirects`.
 * - `allowLoopback` admits 127.0.0.0/8 and ::1 only; every other private range stays refused.
 */
import { promises as dns } from "node:dns";
import { readFile } from "node:fs/promises";
import http, { type IncomingMessage, type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
import { StageError } from "../engine/stage.js";

export { addressRefusal, isLoopbackAddress, isPrivateAddress, type AddressCheckOptions } from "./addresses.js";
import { addressRefusal, isLoopbackAddress, type AddressCheckOptions } from "./addresses.js";

export interface GuardedFetchOptions extends AddressCheckOptions {
  /** Redirect hops to follow. Default 5. 0 follows none: a 3xx comes back as the answer, with its status. */
  maxRedirects?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Extra CA certificates to trust, on top of Node's bundled roots (tests: a loopback server's CA). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Default GET. 301/302/303 turn a POST into a GET without a body, as browsers do. */
  method?: string;
  body?: string | Buffer;
  /** Milliseconds without socket activity before the request fails. Default 30000. */
  idleTimeoutMs?: number;
}

export interface GuardedResponse {
  /** The final response; its body has not been read. Destroy it if you do not read it. */
  response: IncomingMessage;
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that produced this response, after redirects. */
  url: URL;
  /** The checked address the connection went to. */
  address: string;
  redirects: number;
}

/** Fetches a user-given URL without letting it reach private networks. See the file header. */
export async function guardedFetch(input: string | URL, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const maxRedirects = opts.maxRedirects ?? 5;
  let url = parseUserUrl(input);
  let method = (opts.method ?? "GET").toUpperCase();
  let body = opts.body;
  for (let hop = 0; ; hop++) {
    opts.signal?.throwIfAborted();
    const address = await checkedAddress(url, opts);
    const response = await request(url, address, method, body, opts);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (![301, 302, 303, 307, 308].includes(status) || !location || maxRedirects === 0) {
      return { response, status, headers: response.headers, url, address, redirects: hop };
    }
    response.resume(); // drain: the body of a redirect is of no interest
    response.destroy();
    if (hop >= maxRedirects) {
      throw new StageError("too_many_redirects", `${describeUrl(url)} redirected more than ${maxRedirects} times`, {
        details: { max_redirects: maxRedirects },
      });
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (cause) {
      throw new StageError("bad_url", `${describeUrl(url)} redirected to an invalid address`, { cause });
    }
    url = parseUserUrl(next);
    if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
  }
}

// CA files read once per process (like the rest of the config, a changed file needs a restart);
// a failed read is not kept, so a file put right is read on the next call.
const caFiles = new Map<string, Promise<Buffer>>();
function readCa(file: string): Promise<Buffer> {
  let read = caFiles.get(file);
  if (!read) {
    read = readFile(file);
    caFiles.set(file, read);
    read.catch(() => caFiles.delete(file));
  }
  return read;
}

/** Reads `network.allow_loopback` and `network.extra_ca` from the effective config. */
export async function netguardOptionsFromConfig(
  // biome-ignore lint/suspicious/noExplicitAny: node's lookup overloads; socket errors carry errno fields
  config: Readonly<Record<string, any>>,
): Promise<Pick<GuardedFetchOptions, "allowLoopback" | "ca">> {
  const network = config?.network ?? {};
  const out: Pick<GuardedFetchOptions, "allowLoopback" | "ca"> = { allowLoopback: network.allow_loopback === true };
  if (typeof network.extra_ca === "string" && network.extra_ca) out.ca = await readCa(path.resolve(network.extra_ca));
  return out;
}

function parseUserUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch (cause) {
    throw new StageError("bad_url", `"${String(input).slice(0, 200)}" is not a valid URL`, { cause });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new StageError("bad_url", `only https links are accepted (got ${url.protocol.replace(/:$/, "")})`);
  }
  if (url.username || url.password)
    throw new StageError("bad_url", `links with a user name or password are not accepted (${url.host})`);
  return url;
}

/** Every address a host name stands for (an IP literal stands for itself). DNS errors are thrown as they come. */
export async function resolveHostAddresses(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  if (net.isIP(bare)) return [bare];
  return (await dns.lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
}

/** Resolves the URL's host, refuses it if any answer is private, and returns the address to use. */
async function checkedAddress(url: URL, opts: GuardedFetchOptions): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // Plain http exists only for loopback test servers; decide before any DNS query is made.
  const loopbackName = host === "localhost" || host.endsWith(".localhost") || isLoopbackAddress(host);
  if (url.protocol === "http:" && !(opts.allowLoopback && loopbackName)) {
    throw new StageError("bad_url", `only https links are accepted (got http://${url.host})`);
  }
  let addresses: string[];
  try {
    addresses = await resolveHostAddresses(host);
  } catch (caught) {
    const cause = caught as NodeJS.ErrnoException;
    const missing = cause?.code === "ENOTFOUND" || cause?.code === "ENODATA";
    throw new StageError(
      "fetch_failed",
      `could not resolve ${host}${missing ? ": no such host" : ` (${cause?.code ?? cause})`}`,
      {
        retryable: !missing,
        cause,
      },
    );
  }
  if (addresses.length === 0) throw new StageError("fetch_failed", `could not resolve ${host}: no addresses`);
  for (const address of addresses) {
    const reason = addressRefusal(address, opts);
    if (reason) {
      throw new StageError(
        "forbidden_address",
        `${host} is not allowed: it resolves to ${address}, which is ${reason}`,
        {
          details: { host, address, reason },
        },
      );
    }
    if (url.protocol === "http:" && !isLoopbackAddress(address)) {
      throw new StageError("bad_url", `only https links are accepted (got http://${url.host})`);
    }
  }
  return addresses[0]!;
}

function request(
  url: URL,
  address: string,
  method: string,
  body: string | Buffer | undefined,
  opts: GuardedFetchOptions,
): Promise<IncomingMessage> {
  const family = net.isIP(address);
  // Answers every lookup with the address that was checked; copes with both callback shapes.
  // biome-ignore lint/suspicious/noExplicitAny: node's lookup overloads; socket errors carry errno fields
  const lookup = (_host: string, options: any, cb: (...args: any[]) => void) => {
    const done = typeof options === "function" ? options : cb;
    if (options?.all) done(null, [{ address, family }]);
    else done(null, address, family);
  };
  const ca =
    opts.ca === undefined ? undefined : [...tls.rootCertificates, ...(Array.isArray(opts.ca) ? opts.ca : [opts.ca])];
  const headers: Record<string, string> = { "user-agent": "clipd", accept: "*/*", ...opts.headers };
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    // biome-ignore lint/suspicious/noExplicitAny: node's lookup overloads; socket errors carry errno fields
    const req = lib.request(url, { method, headers, lookup: lookup as any, agent: false, ca, signal: opts.signal });
    req.setTimeout(opts.idleTimeoutMs ?? 30_000, () => {
      req.destroy(new StageError("fetch_failed", `${describeUrl(url)} did not answer in time`, { retryable: true }));
    });
    req.once("response", resolve);
    // biome-ignore lint/suspicious/noExplicitAny: node's lookup overloads; socket errors carry errno fields
    req.once("error", (err: any) => {
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      if (err instanceof StageError) return reject(err);
      const tlsProblem =
        typeof err?.code === "string" && /CERT|SSL|TLS|SELF_SIGNED|VERIFY|ISSUER|SIGNATURE/.test(err.code);
      reject(
        new StageError(
          "fetch_failed",
          `could not fetch ${describeUrl(url)}: ${tlsProblem ? "TLS error, " : ""}${err?.message ?? err}`,
          {
            retryable: !tlsProblem,
            cause: err,
          },
        ),
      );
    });
    req.end(body);
  });
}

/** The URL without its query (which may carry tokens), for messages. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
