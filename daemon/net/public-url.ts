/**
 * The one check for every URL a user gives clipd to fetch or to call (episode source_url,
 * transcript url, webhook url): parsed, https only, no credentials, and every address its host
 * resolves to public. It runs when the request is made, so a bad link is a 400 naming the field
 * at once instead of a run that fails later; the fetch and delivery paths check again at connect
 * time (daemon/net/guard), pinned to the address they checked, so DNS cannot be swapped between.
 *
 * Refusals are NetRefusals (a code, a message naming the field, and context): `invalid_url` for a malformed, non-https
 * or
 * credentialed link and for a host that does not exist; `forbidden_address` for a private one.
 * A passing DNS failure (no answer in time) is let through: the later checks retry it.
 */
import { Refused } from "../domain/errors.js";
import { addressRefusal, netguardOptionsFromConfig, resolveHostAddresses } from "./guard.js";

/** A user URL refused before anything was fetched; always the caller's input, so a `Refused` (a 400 on the API). */
export class NetRefusal extends Refused {
  declare readonly code: "invalid_url" | "forbidden_address";
  constructor(code: "invalid_url" | "forbidden_address", message: string, context: Record<string, unknown> = {}) {
    super(code, message, { context });
  }
}

const RESERVED_TLD = /(^|\.)(invalid|test|example)\.?$/i;

export interface PublicUrlOptions {
  /** The request field the URL came from, named in every refusal. */
  field: string;
  /** What the address is for, to end the private-address message ("only public addresses can be fetched"). */
  purpose?: string;
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  config: Readonly<Record<string, any>>;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The checks that need no network: parsed, https, no credentials, a path that decodes to no
 * control character (a file name made from it would carry a NUL into the database). Every URL
 * field of a request passes this before any of them is resolved, so the caller hears about its
 * own typo (a credentialed callback_url) rather than the DNS state of another field.
 */
export function checkUrlShape(raw: string, field: string): URL {
  const bad = (message: string) => new NetRefusal("invalid_url", `body field "${field}": ${message}`, { field });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad("is not a valid URL");
  }
  if (url.protocol !== "https:") throw bad(`must be an https link (got ${url.protocol.replace(/:$/, "")})`);
  if (url.username || url.password) throw bad("may not carry a user name or password");
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    /* a malformed escape stays as written: it decodes to nothing */
  }
  if (CONTROL.test(path)) throw bad("its path decodes to a control character (such as %00)");
  url.hash = "";
  return url;
}

/** Parses and checks a user URL; returns it without its fragment. */
export async function checkPublicUrl(raw: string, opts: PublicUrlOptions): Promise<URL> {
  const { field } = opts;
  const bad = (message: string, extra: Record<string, unknown> = {}) =>
    new NetRefusal("invalid_url", `body field "${field}": ${message}`, { field, ...extra });
  const url = checkUrlShape(raw, field);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const { allowLoopback } = await netguardOptionsFromConfig(opts.config);
  // Names reserved never to resolve (RFC 6761) are refused without asking DNS, which may not answer.
  if (RESERVED_TLD.test(host))
    throw bad(`the host ${host} does not resolve to any address (.${host.split(".").pop()} is a reserved name)`, {
      host,
    });
  let addresses: string[];
  try {
    addresses = await resolveHostAddresses(host);
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    if (err?.code === "ENOTFOUND" || err?.code === "ENODATA")
      throw bad(`the host ${host} does not resolve to any address`, { host });
    // A lookup that failed for now (EAI_AGAIN, a refused or broken answer) is refused too: a link
    // taken without knowing where it points would be checked only at fetch time, and fail there.
    throw bad(
      `the host ${host} could not be resolved just now (${err?.code ?? "DNS error"}); check the address, or try again`,
      { host, retryable: true },
    );
  }
  for (const address of addresses) {
    const reason = addressRefusal(address, { allowLoopback });
    if (reason) {
      const where = address === host ? "is" : `resolves to ${address}, which is`;
      throw new NetRefusal(
        "forbidden_address",
        `body field "${field}": ${host} ${where} ${reason}; ${opts.purpose ?? "only public addresses are allowed"}`,
        { field, host, address },
      );
    }
  }
  return url;
}
