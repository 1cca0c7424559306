import { describe, expect, test } from "bun:test";
import { metadataUrls } from "../../src/mcp/http/oauth/issuer-metadata.ts";
import { VerdictCache } from "../../src/mcp/http/oauth/verdict-cache.ts";

/** The resource server's pieces that need no authorization server (the token checks against real ones: test/e2e/oauth-tokens.test.ts). */
describe("OAuth resource server pieces", () => {
  test("discovery URLs: RFC 8414 with the path inserted, then OpenID inserted and appended", () => {
    expect(metadataUrls("https://id.example.com")).toEqual([
      "https://id.example.com/.well-known/oauth-authorization-server",
      "https://id.example.com/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://id.example.com/realms/eng")).toEqual([
      "https://id.example.com/.well-known/oauth-authorization-server/realms/eng",
      "https://id.example.com/.well-known/openid-configuration/realms/eng",
      "https://id.example.com/realms/eng/.well-known/openid-configuration",
    ]);
  });

  test("the verdict cache is bounded (least recently used goes) and honours each entry's expiry", () => {
    let clock = 1000;
    const cache = new VerdictCache<string>(2, () => clock);
    cache.set("a", "A", 2000);
    cache.set("b", "B", 1010);
    expect(cache.get("a")).toBe("A");
    cache.set("c", "C", 2000);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual(["A", undefined, "C"]);
    clock = 2000;
    expect(cache.get("a")).toBeUndefined();
    expect(VerdictCache.keyOf("secret-token")).not.toContain("secret");
  });
});
