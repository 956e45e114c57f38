/**
 * Which addresses a user URL may reach: the tables of private, loopback, link-local, shared,
 * documentation and other special ranges for IPv4 and IPv6 (IPv4 embedded in IPv6 included), and
 * the one check every fetch and every request-time URL check uses.
 */
import net, { BlockList } from "node:net";

type Rule = [network: string, prefix: number, reason: string];

const V4_RULES: Rule[] = [
  ["0.0.0.0", 8, "the 'this network' range 0.0.0.0/8"],
  ["10.0.0.0", 8, "a private network (RFC 1918)"],
  ["100.64.0.0", 10, "carrier-grade NAT space (100.64.0.0/10)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.169.254", 32, "the cloud metadata service"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "a private network (RFC 1918)"],
  ["192.0.0.0", 24, "IETF protocol assignments (192.0.0.0/24)"],
  ["192.0.2.0", 24, "a documentation range"],
  ["192.88.99.0", 24, "the 6to4 relay anycast range"],
  ["192.168.0.0", 16, "a private network (RFC 1918)"],
  ["198.18.0.0", 15, "the benchmarking range 198.18.0.0/15"],
  ["198.51.100.0", 24, "a documentation range"],
  ["203.0.113.0", 24, "a documentation range"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved (240.0.0.0/4)"],
];
// Checked after the embedded-IPv4 forms (mapped, NAT64, 6to4) have been unwrapped.
const V6_RULES: Rule[] = [
  ["::1", 128, "loopback"],
  ["::", 128, "the unspecified address"],
  ["fd00:ec2::254", 128, "the cloud metadata service"],
  ["64:ff9b:1::", 48, "local-use NAT64"],
  ["100::", 64, "the discard range"],
  ["2001::", 23, "IETF protocol assignments (2001::/23)"],
  ["2001:db8::", 32, "a documentation range"],
  ["3fff::", 20, "a documentation range"],
  ["5f00::", 16, "segment routing space"],
  ["fc00::", 7, "a unique-local network (fc00::/7)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

// One BlockList per rule keeps the reason; the lists are tiny, so the cost is nothing.
const compile = (rules: Rule[], family: "ipv4" | "ipv6") =>
  rules.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason, loopback: reason === "loopback" };
  });
const V4 = compile(V4_RULES, "ipv4");
const V6 = compile(V6_RULES, "ipv6");
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

export interface AddressCheckOptions {
  /** Tests only: admit 127.0.0.0/8, ::1 and ::ffff:127.x (never 6to4, NAT64 or IPv4-compatible forms). */
  allowLoopback?: boolean;
}

/**
 * Why an address must not be contacted ("loopback", "a private network (RFC 1918)" …), or
 * undefined when it is a public address. Anything that is not an IP literal is refused.
 */
export function addressRefusal(ip: string, opts: AddressCheckOptions = {}): string | undefined {
  const address = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = net.isIP(address);
  if (family === 4) return matchRules(V4, address, "ipv4", opts);
  if (family !== 6) return "not an IP address";
  const bytes = parseIPv6(address);
  const embedded = embeddedIPv4(bytes);
  if (embedded) {
    // allow_loopback admits real loopback only: the mapped form is how a dual-stack socket names
    // 127.x, but 6to4, NAT64 and IPv4-compatible forms route elsewhere and stay refused.
    const inner = matchRules(V4, embedded.v4, "ipv4", embedded.via === "IPv4-mapped" ? opts : {});
    return inner && `${inner} (${embedded.via} ${embedded.v4})`;
  }
  const own = matchRules(V6, address, "ipv6", opts);
  if (own !== undefined || (opts.allowLoopback && isLoopbackV6(bytes))) return own;
  return GLOBAL_UNICAST_V6.check(address, "ipv6") ? undefined : "outside global unicast space (2000::/3)";
}

/** True for any address clipd must not contact on a user's behalf (see the ranges above). */
export function isPrivateAddress(ip: string): boolean {
  return addressRefusal(ip) !== undefined;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (not the 6to4, NAT64 or IPv4-compatible forms). */
export function isLoopbackAddress(ip: string): boolean {
  const address = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = net.isIP(address);
  if (family === 4) return address.startsWith("127.");
  if (family !== 6) return false;
  const bytes = parseIPv6(address);
  const embedded = embeddedIPv4(bytes);
  return embedded ? embedded.via === "IPv4-mapped" && embedded.v4.startsWith("127.") : isLoopbackV6(bytes);
}

function matchRules(
  rules: ReturnType<typeof compile>,
  address: string,
  family: "ipv4" | "ipv6",
  opts: AddressCheckOptions,
) {
  for (const rule of rules) {
    if (rule.list.check(address, family)) return rule.loopback && opts.allowLoopback ? undefined : rule.reason;
  }
  return undefined;
}

const isLoopbackV6 = (b: number[]) => b.slice(0, 15).every((x) => x === 0) && b[15] === 1;

/** IPv4 addresses carried inside IPv6 forms that a router would unwrap and deliver to. */
function embeddedIPv4(b: number[]): { v4: string; via: string } | undefined {
  const v4 = (at: number) => b.slice(at, at + 4).join(".");
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return { v4: v4(12), via: "IPv4-mapped" };
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12))
    return { v4: v4(12), via: "NAT64" };
  if (b[0] === 0x20 && b[1] === 0x02) return { v4: v4(2), via: "6to4" };
  // Deprecated IPv4-compatible form ::a.b.c.d (but not :: or ::1, which are IPv6's own).
  if (zeros(0, 12) && !(zeros(12, 15) && b[15]! <= 1)) return { v4: v4(12), via: "IPv4-compatible" };
  return undefined;
}

/** 16 bytes of a valid IPv6 literal (net.isIP has already vouched for it). */
function parseIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const groups = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const fill = rest === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  for (const g of [...left, ...fill, ...right]) tail.push(g >> 8, g & 0xff);
  return tail;
}
