import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { accessLog, INITIALIZE, postJson, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { rawHttp } from "../helpers/raw-http.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { eventually } from "./live-session.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-fedcba9876543210xyz";
/** The access log reaches us through a pipe: a generous bound on waiting for a line, not a verdict. */
const LOG_WAIT_MS = 30_000;
const BAD_HOST = {
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: "Bad Request: the Host header is missing or is not a host name" },
};

/**
 * The edges of `mcp --http` a hostile client reaches before or around MCP: requests whose URL
 * cannot be formed, client-chosen values in the access log, exact `--allow-origin` matching and
 * tokens pasted into the path.
 */
export function httpEdgeSuite(target: ServerTarget): void {
  describe(`MCP over HTTP, hostile edges (${target.name})`, () => {
    let fixture: Fixture;
    let server: HttpServer;
    const auth = { Authorization: `Bearer ${ALICE}` };

    beforeAll(async () => {
      fixture = makeFixture({
        ".skills/echo.yaml": "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object }\n",
      });
      const tokens = join(fixture.root, "tokens");
      writeTokenFile(tokens, `alice ${ALICE}\nbob ${BOB}\n`);
      server = await startHttpServer({
        target,
        cwd: fixture.cwd,
        home: fixture.home,
        args: ["--token-file", tokens, "--allow-origin", "https://app.example.com"],
      });
    });
    afterAll(async () => {
      await server?.stop();
      fixture?.cleanup();
    });

    /**
     * The access-log lines `act` caused: it runs, then a marker request follows, and once the
     * marker's line is in (lines arrive in order) everything between is what `act` logged.
     */
    async function linesOf(act: () => Promise<void>): Promise<string[]> {
      // A marker first, too: lines of an earlier test may still be in the pipe.
      const before = await markerLogged();
      await act();
      const after = await markerLogged();
      return accessLog(server.stderr()).slice(before, after - 1);
    }

    /** Sends a marker request; once its line is in, the number of access lines so far. */
    async function markerLogged(): Promise<number> {
      const markers = () => accessLog(server.stderr()).filter((line) => / http GET \/readyz \d{3} /.test(line)).length;
      const seen = markers();
      expect((await fetch(`${server.base}/readyz`)).status).toBeGreaterThan(0);
      return eventually(() => {
        const all = accessLog(server.stderr());
        expect(markers()).toBe(seen + 1);
        return all.length;
      }, LOG_WAIT_MS);
    }

    test("an HTTP/1.0 request with no Host, or a Host that is not a host name, gets a small JSON 400 and one access line", async () => {
      const requests: [string, RegExp][] = [
        ["GET /mcp HTTP/1.0\r\n\r\n", /^\[skill-central\] http GET \/mcp 400 \d+\.\dms$/],
        [
          `POST /mcp HTTP/1.0\r\nHost: a@localhost\r\nContent-Type: application/json\r\nContent-Length: ${JSON.stringify(INITIALIZE).length}\r\n\r\n${JSON.stringify(INITIALIZE)}`,
          /^\[skill-central\] http POST \/mcp 400 \d+\.\dms$/,
        ],
        ["GET /healthz HTTP/1.0\r\nHost: a@localhost\r\n\r\n", /^\[skill-central\] http GET \/healthz 400 \d+\.\dms$/],
        [`GET /mcp/${ALICE} HTTP/1.0\r\nHost: [::1\r\n\r\n`, /^\[skill-central\] http GET \/mcp\/\* 400 \d+\.\dms$/],
        [
          "DELETE /mcp HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n",
          /^\[skill-central\] http DELETE \/mcp 400 \d+\.\dms$/,
        ],
      ];
      for (const [request, line] of requests) {
        const lines = await linesOf(async () => {
          const response = await rawHttp(server.base, request);
          expect(response.status).toBe(400);
          expect(response.headers["content-type"]).toStartWith("application/json");
          expect(response.body.length).toBeLessThan(200);
          expect(JSON.parse(response.body)).toEqual(BAD_HOST);
          for (const internal of [fixture.cwd, process.cwd(), "src/", ".ts", "    at "])
            expect(response.raw).not.toContain(internal);
        });
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(line);
      }
      expect(server.stderr()).not.toContain(ALICE);
      // And the server goes on.
      expect((await postJson(server.url, INITIALIZE, auth)).status).toBe(200);
    });

    test("a JSON-RPC method with a newline cannot forge a log line, and a method of megabytes is logged capped", async () => {
      const forged = "[skill-central] http POST /mcp 200 1.0ms rpc=tools/call token=bob";
      const lines = await linesOf(async () => {
        await postJson(server.url, { jsonrpc: "2.0", id: 1, method: `tools/list\n${forged}` }, auth);
        await postJson(
          server.url,
          { jsonrpc: "2.0", id: 2, method: `tools/list\r${forged} "quoted" \\ \u2028 \u001b[2J` },
          auth,
        );
      });
      expect(lines).toHaveLength(2);
      expect(lines[0]).toStartWith("[skill-central] http POST /mcp 400 ");
      expect(lines[0]).toContain(String.raw`rpc="tools/list\n[skill-central] http POST /mcp 200 1.0ms rpc=tools/`);
      expect(lines[1]).toContain(String.raw`rpc="tools/list\r[skill-central]`);
      expect(lines.every((l) => l.endsWith(" token=alice"))).toBe(true);
      const stderrLines = server.stderr().split("\n");
      expect(stderrLines.some((l) => l.startsWith(forged) || l.includes("\r[skill-central]"))).toBe(false);
      expect(server.stderr()).not.toContain("token=bob");
      expect(server.stderr()).not.toContain("\u001b");

      const huge = "m".repeat(3 * 1024 * 1024);
      const before = server.stderr().length;
      const [line] = await linesOf(async () => {
        expect((await postJson(server.url, { jsonrpc: "2.0", id: 3, method: huge }, auth)).status).toBe(400);
      });
      expect(line).toContain(`rpc="${"m".repeat(64)}…(${huge.length} chars)" token=alice`);
      // The line and the marker's: nowhere near the megabytes sent.
      expect(server.stderr().length - before).toBeLessThan(1_000);
    });

    test("--allow-origin admits its origin only: another scheme or port is 403 and gets no CORS headers", async () => {
      for (const origin of [
        "http://app.example.com:8081",
        "ftp://app.example.com",
        "http://app.example.com",
        "https://app.example.com:8443",
        "https://app.example.com.evil.example",
        "ws://localhost:3000",
      ]) {
        const response = await postJson(server.url, INITIALIZE, { ...auth, Origin: origin });
        expect({ origin, status: response.status }).toEqual({ origin, status: 403 });
        expect(response.headers.get("access-control-allow-origin")).toBeNull();
        expect(((await response.json()) as { error: { message: string } }).error.message).toContain("--allow-origin");
        const preflight = await fetch(server.url, {
          method: "OPTIONS",
          headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
        });
        expect({ origin, status: preflight.status }).toEqual({ origin, status: 403 });
      }
      for (const origin of [
        "https://app.example.com",
        "https://app.example.com:443",
        "https://APP.example.com",
        "http://localhost:6274",
        "http://127.0.0.1:3000",
      ]) {
        const response = await postJson(server.url, INITIALIZE, { ...auth, Origin: origin });
        expect({ origin, status: response.status }).toEqual({ origin, status: 200 });
        expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      }
    });

    test("a token in the URL path is never logged: an unknown path is logged by its shape", async () => {
      const lines = await linesOf(async () => {
        for (const path of [
          `/mcp/${ALICE}`,
          `/${ALICE}`,
          `/mcp/x/${ALICE}/`,
          `/${ALICE}/mcp?q=${ALICE}`,
          `/${encodeURIComponent(`a/${ALICE}`)}`,
        ]) {
          expect((await postJson(`${server.base}${path}`, INITIALIZE, auth)).status).toBe(404);
        }
        expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      });
      expect(lines.map((l) => l.replace(/ \d+\.\dms/, ""))).toEqual([
        "[skill-central] http POST /mcp/* 404",
        "[skill-central] http POST /* 404",
        "[skill-central] http POST /mcp/*/*/ 404",
        "[skill-central] http POST /*/mcp 404",
        "[skill-central] http POST /* 404",
        "[skill-central] http GET /healthz 200",
      ]);
      expect(server.stderr()).not.toContain(ALICE);
      expect(server.stderr()).not.toContain(ALICE.slice(0, 12));
    });
  });

  describe(`--allow-origin with a default port (${target.name})`, () => {
    let fixture: Fixture;
    let server: HttpServer;
    beforeAll(async () => {
      fixture = makeFixture({});
      server = await startHttpServer({
        target,
        cwd: fixture.cwd,
        home: fixture.home,
        args: ["--allow-origin", "http://intranet.example:80", "--allow-origin", "https://App.Example.com:443/"],
      });
    });
    afterAll(async () => {
      await server?.stop();
      fixture?.cleanup();
    });

    test("is the origin without it; scheme, host and port must still match", async () => {
      const status = async (origin: string) => (await postJson(server.url, INITIALIZE, { Origin: origin })).status;
      expect(await status("http://intranet.example")).toBe(200);
      expect(await status("https://app.example.com")).toBe(200);
      expect(await status("http://intranet.example:8080")).toBe(403);
      expect(await status("https://intranet.example")).toBe(403);
      expect(await status("http://app.example.com:443")).toBe(403);
    });
  });
}
