// allow_loopback (a test setting) admits real loopback only: 127.0.0.0/8, ::1 and its IPv4-mapped
// form. IPv6 forms that carry 127.x to some other router (6to4, NAT64, IPv4-compatible) stay refused.
import { describe, expect, it } from "vitest";
import { addressRefusal, isLoopbackAddress } from "../../daemon/net/addresses.js";

describe("allowLoopback", () => {
  it.each(["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"])("admits %s", (ip) => {
    expect(addressRefusal(ip, { allowLoopback: true })).toBeUndefined();
    expect(isLoopbackAddress(ip)).toBe(true);
  });

  it.each(["2002:7f00:1::", "2002:7f00:0001::1", "::127.0.0.1", "::7f00:1", "64:ff9b::127.0.0.1", "64:ff9b::7f00:1"])(
    "still refuses %s",
    (ip) => {
      expect(addressRefusal(ip, { allowLoopback: true })).toMatch(/loopback \((6to4|NAT64|IPv4-compatible) 127\./);
      expect(isLoopbackAddress(ip)).toBe(false);
    },
  );

  it("leaves public 6to4 and NAT64 addresses allowed", () => {
    expect(addressRefusal("2002:808:808::1", { allowLoopback: true })).toBeUndefined();
    expect(addressRefusal("64:ff9b::808:808", { allowLoopback: true })).toBeUndefined();
  });
});
