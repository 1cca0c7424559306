import { describe, expect, test } from "bun:test";
import { loggedPath, pathOfTarget } from "../../src/mcp/http/access-log.ts";
import { logValue, MAX_LOGGED_CHARS } from "../../src/mcp/log-value.ts";
import { parseAllowedOrigin } from "../../src/mcp/http/request-guard.ts";
import { serveMcpOverHttp } from "../../src/mcp/http/index.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";

const ROUTES = ["/mcp", "/healthz", "/readyz"];

describe("logValue: a client-chosen value as one log field", () => {
  test("plain printable ASCII stays as it is", () => {
    expect(logValue("tools/call")).toBe("tools/call");
    expect(logValue("notifications/resources/list_changed")).toBe("notifications/resources/list_changed");
  });

  test("anything that could end, split or disguise a line is quoted and escaped", () => {
    expect(logValue("a\nb")).toBe(String.raw`"a\nb"`);
    expect(logValue("a\r\nb\tc")).toBe(String.raw`"a\r\nb\tc"`);
    expect(logValue("a b")).toBe('"a b"');
    expect(logValue('say "hi"')).toBe(String.raw`"say \"hi\""`);
    expect(logValue("back\\slash")).toBe(String.raw`"back\\slash"`);
    expect(logValue("\u001b[2J\u2028é\u202e")).toBe(String.raw`"\u001b[2J\u2028\u00e9\u202e"`);
    expect(logValue("")).toBe('""');
    for (const hostile of ["x\ny", "\u2028", "a…(3 chars)"])
      expect(logValue(hostile)).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  test("a long value is cut with its full length, and the marker cannot be forged", () => {
    const long = "m".repeat(5 * 1024 * 1024);
    expect(logValue(long)).toBe(`"${"m".repeat(MAX_LOGGED_CHARS)}…(${long.length} chars)"`);
    expect(logValue("x".repeat(MAX_LOGGED_CHARS))).toBe("x".repeat(MAX_LOGGED_CHARS));
    expect(logValue("y".repeat(300), 200)).toEndWith('…(300 chars)"');
    expect(logValue("short…(9 chars)")).toBe(String.raw`"short\u2026(9 chars)"`);
  });
});

describe("loggedPath: what the log shows of a path", () => {
  test("routes as they are; any other path by its shape", () => {
    expect(loggedPath("/mcp", ROUTES)).toBe("/mcp");
    expect(loggedPath("/healthz", ROUTES)).toBe("/healthz");
    expect(loggedPath("/mcp/secret-token-1234567890", ROUTES)).toBe("/mcp/*");
    expect(loggedPath("/secret-token-1234567890", ROUTES)).toBe("/*");
    expect(loggedPath("/mcp/", ROUTES)).toBe("/mcp/");
    expect(loggedPath("/", ROUTES)).toBe("/");
    expect(loggedPath("/a/b/c/d/e/f/g/h/i/j", ROUTES)).toBe("/*/*/*/*/*/*/*/*/…");
  });

  test("the path of a target whose URL cannot be formed", () => {
    expect(pathOfTarget("/mcp")).toBe("/mcp");
    expect(pathOfTarget("http://[::1/mcp/x")).toBe("/mcp/x");
    expect(pathOfTarget("http://a b")).toBe("/");
    expect(pathOfTarget("*")).toBe("/");
  });
});

describe("parseAllowedOrigin", () => {
  test("an http(s) origin, normalised as browsers send it", () => {
    expect(parseAllowedOrigin("https://app.example.com")).toBe("https://app.example.com");
    expect(parseAllowedOrigin("https://app.example.com/")).toBe("https://app.example.com");
    expect(parseAllowedOrigin("https://App.Example.com:443")).toBe("https://app.example.com");
    expect(parseAllowedOrigin("http://intranet.example:80")).toBe("http://intranet.example");
    expect(parseAllowedOrigin("http://intranet.example:8080")).toBe("http://intranet.example:8080");
  });

  test("anything else is not an origin", () => {
    for (const text of [
      "app.example.com",
      "localhost:3000",
      "ftp://app.example.com",
      "https://app.example.com/path",
      "https://app.example.com?x",
      "https://user@app.example.com",
      "null",
      "",
    ]) {
      expect({ text, origin: parseAllowedOrigin(text) }).toEqual({ text, origin: undefined });
    }
  });
});

test("an error that escapes the request handler gets a bare JSON 500 (never Bun's development page) and one access line", async () => {
  const lines: string[] = [];
  let failed = false;
  const serving = serveMcpOverHttp(new LiveRegistry(), {
    host: "127.0.0.1",
    port: 0,
    stateless: false,
    live: false,
    tokens: undefined,
    allowedOrigins: [],
    allowedHosts: [],
    maxSessions: 10,
    sessionIdleMs: 60_000,
    keepAliveMs: 15_000,
    // The one fault we can inject from outside: writing the access line throws, once.
    log(line) {
      if (!failed && line.startsWith("http GET /healthz")) {
        failed = true;
        throw new Error("the log is gone");
      }
      lines.push(line);
    },
  });
  try {
    const response = await fetch(serving.url.replace(/\/mcp$/, "/healthz"));
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error" } });
    expect(failed).toBe(true);
    expect(lines).toEqual(['internal error: "the log is gone"', "http - - 500"]);
    expect((await fetch(serving.url.replace(/\/mcp$/, "/healthz"))).status).toBe(200);
  } finally {
    await serving.stop();
  }
});
