/**
 * SSRF vectors: links a user may hand clipd that must never make it contact a private address.
 * Every one must be refused when the request is made. Loopback forms carry the ports of the
 * target servers the suite listens on (ssrf-core.ts), so a slip shows as a hit, not only as a
 * wrong answer. Nothing here needs the internet: hosts are IP literals, reserved names (.invalid,
 * .example, .internal) or names that fail resolution at once.
 */

export interface SsrfVector {
  group: string;
  url: string;
}

/** Ports of the loopback target servers: `https` (TLS) and `http` (plain). */
export interface TargetPorts {
  https: number;
  http: number;
}

const group = (name: string, urls: string[]): SsrfVector[] => urls.map((url) => ({ group: name, url }));

export function ssrfVectors({ https: P, http: H }: TargetPorts): SsrfVector[] {
  return [
    ...group("loopback", [
      `https://127.0.0.1:${P}/a.mp3`,
      `https://127.0.0.2:${P}/a.mp3`,
      `https://127.1:${P}/a.mp3`,
      `https://2130706433:${P}/a.mp3`,
      `https://0x7f000001:${P}/a.mp3`,
      `https://0177.0.0.1:${P}/a.mp3`,
      `https://0x7f.0.0.1:${P}/a.mp3`,
      `https://127.000.000.001:${P}/a.mp3`,
      `https://[::1]:${P}/a.mp3`,
      `https://[0:0:0:0:0:0:0:1]:${P}/a.mp3`,
      `https://[::ffff:127.0.0.1]:${P}/a.mp3`,
      `https://[::ffff:7f00:1]:${P}/a.mp3`,
      `https://localhost:${P}/a.mp3`,
      `https://LOCALHOST:${P}/a.mp3`,
      `https://localhost.:${P}/a.mp3`,
      `https://foo.localhost:${P}/a.mp3`,
      `https://127.0.0.1.:${P}/a.mp3`,
      `https://%31%32%37.0.0.1:${P}/a.mp3`,
      `https://\u2460\u2461\u2466.0.0.1:${P}/a.mp3`,
      `HTTPS://127.0.0.1:${P}/a.mp3`,
      `https:/127.0.0.1:${P}/a.mp3`,
      `https://127.0.0.1:${P}\\@93.184.215.14/a.mp3`,
      `https://127.0.0.1:6379/`,
    ]),
    ...group("unspecified", [`https://0.0.0.0:${P}/a.mp3`, `https://0:${P}/a.mp3`, `https://[::]:${P}/a.mp3`]),
    ...group("private", [
      "https://10.0.0.1/a.mp3",
      "https://10.255.255.254/a.mp3",
      "https://012.0.0.1/a.mp3",
      "https://167772161/a.mp3",
      "https://0xa000001/a.mp3",
      "https://10.0.0.1./a.mp3",
      "https://%31%30.0.0.1/a.mp3",
      "https://10.0.0.1:22/",
      "https://172.16.0.1/a.mp3",
      "https://172.31.255.254/a.mp3",
      "https://192.168.0.1/a.mp3",
      "https://192.168.1.1:8443/a.mp3",
    ]),
    ...group("link-local and metadata", [
      "https://169.254.169.254/latest/meta-data/",
      "https://169.254.169.254:80/latest/meta-data/",
      "https://0xa9fea9fe/latest/meta-data/",
      "https://169.254.0.1/a.mp3",
      "https://[fd00:ec2::254]/latest/meta-data/",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://[fe80::1]/a.mp3",
      "https://[fe80::1%25eth0]/a.mp3",
    ]),
    ...group("CGNAT", ["https://100.64.0.1/a.mp3", "https://100.127.255.254/a.mp3"]),
    ...group("IPv6 carrying IPv4", [
      `https://[64:ff9b::7f00:1]:${P}/a.mp3`,
      "https://[64:ff9b::10.0.0.1]/a.mp3",
      `https://[2002:7f00:1::]:${P}/a.mp3`,
      "https://[2002:a00:1::]/a.mp3",
      `https://[::127.0.0.1]:${P}/a.mp3`,
      "https://[::ffff:10.0.0.1]/a.mp3",
      "https://[::ffff:169.254.169.254]/latest/meta-data/",
    ]),
    ...group("IPv6 ULA", ["https://[fc00::1]/a.mp3", "https://[fd12:3456:789a::1]/a.mp3"]),
    ...group("multicast, broadcast, reserved", [
      "https://224.0.0.1/a.mp3",
      "https://239.255.255.250/a.mp3",
      "https://[ff02::1]/a.mp3",
      "https://255.255.255.255/a.mp3",
      "https://240.0.0.1/a.mp3",
      "https://192.0.2.1/a.mp3",
      "https://198.18.0.1/a.mp3",
    ]),
    ...group("credentials", [
      "https://user:pw@example.com/a.mp3",
      "https://user@93.184.215.14/a.mp3",
      "https://:pw@93.184.215.14/a.mp3",
      `https://93.184.215.14@127.0.0.1:${P}/a.mp3`,
    ]),
    ...group("schemes", [
      `http://127.0.0.1:${H}/a.mp3`,
      "http://93.184.215.14/a.mp3",
      "file:///etc/passwd",
      "ftp://127.0.0.1/a.mp3",
      `gopher://127.0.0.1:${H}/_GET%20/`,
      "data:audio/mpeg;base64,AAAA",
      "javascript:alert(1)",
      `//127.0.0.1:${P}/a.mp3`,
      ` https://127.0.0.1:${P}/a.mp3`,
    ]),
    ...group("odd ports", ["https://127.0.0.1:0/a.mp3", "https://127.0.0.1:65536/a.mp3", `https://[::1]:25/`]),
    ...group("names that do not resolve", [
      "https://no-such-host.invalid/a.mp3",
      "https://media.example/a.mp3",
      "https://nonexistent-zz9.clipd-ssrf-test/a.mp3",
    ]),
  ];
}

/**
 * Where a loopback redirector (allowed in, with network.allow_loopback on) sends the fetch next:
 * every one must be refused at the hop, and none may reach the target servers.
 */
export function redirectTargets({ https: P, http: H }: TargetPorts): string[] {
  return [
    "https://10.0.0.1/a.mp3",
    "https://192.168.0.1/a.mp3",
    "https://169.254.169.254/latest/meta-data/",
    "https://[fd00:ec2::254]/latest/meta-data/",
    "https://100.64.0.1/a.mp3",
    "https://[fc00::1]/a.mp3",
    `https://0.0.0.0:${P}/a.mp3`,
    `https://[::]:${P}/a.mp3`,
    `https://[64:ff9b::7f00:1]:${P}/a.mp3`,
    `https://[2002:7f00:1::]:${P}/a.mp3`,
    `https://[::127.0.0.1]:${P}/a.mp3`,
    `http://10.0.0.1:${H}/a.mp3`,
    "file:///etc/passwd",
    `https://user:pw@127.0.0.1:${P}/a.mp3`,
  ];
}
