import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { promises as dnsPromises } from "node:dns";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  addressRefusal,
  guardedFetch,
  isLoopbackAddress,
  isPrivateAddress,
  netguardOptionsFromConfig,
} from "../../daemon/net/guard.js";
import { StageError } from "../../daemon/engine/stage.js";
import { redirectTo, startHttpsServer, TEST_HOSTNAME, type TestHttpsServer } from "../helpers/https-server.js";

const refused = [
  "127.0.0.1",
  "127.255.255.254",
  "::1",
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.0.1",
  "169.254.169.254",
  "100.64.0.1",
  "100.127.255.255",
  "192.0.0.8",
  "192.0.2.1",
  "198.51.100.7",
  "203.0.113.9",
  "198.18.0.1",
  "198.19.255.255",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "192.88.99.1",
  "::",
  "fe80::1",
  "fe80::1%eth0",
  "febf::1",
  "fc00::1",
  "fd12:3456::1",
  "fd00:ec2::254",
  "ff02::1",
  "2001:db8::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.0.0.1",
  "::ffff:169.254.169.254",
  "64:ff9b::a00:1",
  "64:ff9b::127.0.0.1",
  "64:ff9b:1::1",
  "2002:c0a8:0101::1",
  "2001::1",
  "::127.0.0.1",
  "[::1]",
  "not-an-ip",
  "",
];
const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.32.0.1",
  "172.15.255.255",
  "100.128.0.1",
  "100.63.255.255",
  "192.169.0.1",
  "198.20.0.1",
  "223.255.255.255",
  "169.255.0.1",
  "11.0.0.1",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

describe("isPrivateAddress", () => {
  it.each(refused)("refuses %s", (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(allowed)("allows %s", (ip) => expect(isPrivateAddress(ip)).toBe(false));

  it("names the reason", () => {
    expect(addressRefusal("169.254.169.254")).toBe("the cloud metadata service");
    expect(addressRefusal("fd00:ec2::254")).toBe("the cloud metadata service");
    expect(addressRefusal("10.1.2.3")).toMatch(/RFC 1918/);
    expect(addressRefusal("::ffff:192.168.0.1")).toMatch(/RFC 1918.*IPv4-mapped 192\.168\.0\.1/);
    expect(addressRefusal("64:ff9b::7f00:1")).toMatch(/loopback.*NAT64 127\.0\.0\.1/);
  });

  it("allowLoopback admits loopback only", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(addressRefusal(ip, { allowLoopback: true })).toBeUndefined();
      expect(isLoopbackAddress(ip)).toBe(true);
    }
    for (const ip of [
      "10.0.0.1",
      "169.254.169.254",
      "192.168.0.1",
      "fe80::1",
      "fc00::1",
      "0.0.0.0",
      "::",
      "100.64.0.1",
    ]) {
      expect(addressRefusal(ip, { allowLoopback: true })).toBeDefined();
      expect(isLoopbackAddress(ip)).toBe(false);
    }
  });
});

async function failure(p: Promise<unknown>): Promise<StageError> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(StageError);
  return err as StageError;
}

describe("guardedFetch", () => {
  let server: TestHttpsServer;
  beforeAll(async () => {
    server = await startHttpsServer({
      "/ok": (_req, res) => res.end("hello"),
      "/to-metadata": redirectTo("https://169.254.169.254/latest/meta-data/"),
      "/to-private": redirectTo("https://10.0.0.1/x"),
      "/to-http": redirectTo("http://example.com/x"),
    });
    // /r/0 → /r/1 → … → /r/N, which answers "end".
    for (let i = 0; i < 10; i++) server.route(`/r/${i}`, redirectTo(`/r/${i + 1}`, i % 2 ? 301 : 307));
  });
  afterAll(() => server.close());
  const opts = () => ({ allowLoopback: true, ca: server.ca });

  it("fetches over https on loopback when allowed, keeping the hostname for TLS", async () => {
    const res = await guardedFetch(server.url("/ok", "localhost"), opts());
    expect(res.status).toBe(200);
    expect(res.address).toMatch(/^(127\.0\.0\.1|::1)$/);
    let body = "";
    for await (const chunk of res.response) body += chunk;
    expect(body).toBe("hello");
  });

  it("refuses a hostname resolving to loopback when loopback is not allowed", async () => {
    const err = await failure(guardedFetch(server.url("/ok", "localhost"), { ca: server.ca }));
    expect(err.code).toBe("forbidden_address");
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/localhost.*loopback/);
    expect(server.requests).not.toContain("/never");
  });

  it("refuses IP literals in private ranges without connecting", async () => {
    for (const url of [
      "https://10.0.0.1/",
      "https://[fe80::1]/",
      "https://[::ffff:192.168.1.1]/",
      "https://169.254.169.254/",
    ]) {
      expect((await failure(guardedFetch(url, { allowLoopback: true }))).code).toBe("forbidden_address");
    }
    expect((await failure(guardedFetch("https://[::1]/"))).code).toBe("forbidden_address");
    expect((await failure(guardedFetch("https://127.0.0.1/"))).code).toBe("forbidden_address");
  });

  it("re-checks every redirect hop", async () => {
    const meta = await failure(guardedFetch(server.url("/to-metadata"), opts()));
    expect(meta.code).toBe("forbidden_address");
    expect(meta.message).toMatch(/169\.254\.169\.254.*metadata/);
    expect((await failure(guardedFetch(server.url("/to-private"), opts()))).code).toBe("forbidden_address");
    expect((await failure(guardedFetch(server.url("/to-http"), opts()))).code).toBe("bad_url");
  });

  it("follows up to 5 redirects and refuses a sixth", async () => {
    server.route("/r/5", (_req, res) => res.end("end"));
    const ok = await guardedFetch(server.url("/r/0"), opts());
    expect(ok.status).toBe(200);
    expect(ok.redirects).toBe(5);
    expect(ok.url.pathname).toBe("/r/5");
    ok.response.resume();
    server.route("/r/5", redirectTo("/r/6"));
    server.route("/r/6", (_req, res) => res.end("end"));
    const err = await failure(guardedFetch(server.url("/r/0"), opts()));
    expect(err.code).toBe("too_many_redirects");
    expect(err.retryable).toBe(false);
  });

  describe("with faked DNS answers", () => {
    afterEach(() => vi.restoreAllMocks());
    const answer = (...addresses: string[]) =>
      vi.spyOn(dnsPromises, "lookup").mockImplementation((async (host: string) => {
        if (host !== TEST_HOSTNAME)
          throw Object.assign(new Error(`unexpected lookup of ${host}`), { code: "ENOTFOUND" });
        return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      }) as any);

    it("connects to the checked address without resolving the name again", async () => {
      // The name exists only in the faked answer: if the socket resolved it itself, it would fail.
      const spy = answer("127.0.0.1");
      const res = await guardedFetch(`https://${TEST_HOSTNAME}:${server.port}/ok`, opts());
      expect(res.status).toBe(200);
      expect(res.address).toBe("127.0.0.1");
      expect(spy).toHaveBeenCalledTimes(1);
      res.response.resume();
    });

    it("refuses a name when any one of its addresses is private", async () => {
      answer("93.184.216.34", "10.0.0.7");
      const err = await failure(guardedFetch(`https://${TEST_HOSTNAME}/a.mp3`));
      expect(err.code).toBe("forbidden_address");
      expect(err.message).toContain("10.0.0.7");
      answer("2606:4700::1", "fd00:ec2::254");
      expect((await failure(guardedFetch(`https://${TEST_HOSTNAME}/a.mp3`))).message).toMatch(/metadata/);
    });
  });

  it("rejects bad URLs and plain http", async () => {
    expect((await failure(guardedFetch("not a url"))).code).toBe("bad_url");
    expect((await failure(guardedFetch("ftp://example.com/a.mp3"))).code).toBe("bad_url");
    expect((await failure(guardedFetch("file:///etc/passwd"))).code).toBe("bad_url");
    expect((await failure(guardedFetch("http://example.com/a.mp3"))).code).toBe("bad_url");
    expect((await failure(guardedFetch("https://user:pw@example.com/a.mp3"))).code).toBe("bad_url");
  });

  it("allows plain http to loopback only with the test switch", async () => {
    const plain = http.createServer((_req, res) => res.end("plain"));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
    try {
      const res = await guardedFetch(url, { allowLoopback: true });
      expect(res.status).toBe(200);
      res.response.resume();
      expect((await failure(guardedFetch(url))).code).toBe("bad_url");
    } finally {
      plain.close();
    }
  });

  it("does not trust the test CA unless told to", async () => {
    const err = await failure(guardedFetch(server.url("/ok"), { allowLoopback: true }));
    expect(err.code).toBe("fetch_failed");
    expect(err.retryable).toBe(false);
  });

  it("reports connection failures as retryable fetch_failed", async () => {
    const closed = await startHttpsServer();
    const url = closed.url("/ok");
    await closed.close();
    const err = await failure(guardedFetch(url, opts()));
    expect(err.code).toBe("fetch_failed");
    expect(err.retryable).toBe(true);
  });

  it("honours the abort signal", async () => {
    server.route("/slow", () => undefined); // never answers
    const ac = new AbortController();
    const p = guardedFetch(server.url("/slow"), { ...opts(), signal: ac.signal });
    setTimeout(() => ac.abort(new Error("stop")), 100);
    await expect(p).rejects.toThrow("stop");
  });
});

describe("netguardOptionsFromConfig", () => {
  it("reads network.extra_ca once, and reads it again after a failed read", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "clipd-ca-"));
    const file = path.join(dir, "ca.pem");
    const config = { network: { allow_loopback: true, extra_ca: file } };
    try {
      await expect(netguardOptionsFromConfig(config)).rejects.toMatchObject({ code: "ENOENT" });
      await writeFile(file, "first");
      expect(await netguardOptionsFromConfig(config)).toEqual({ allowLoopback: true, ca: Buffer.from("first") });
      await writeFile(file, "second"); // kept from the first good read: a changed CA needs a restart
      expect(String((await netguardOptionsFromConfig(config)).ca)).toBe("first");
      expect(await netguardOptionsFromConfig({})).toEqual({ allowLoopback: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
