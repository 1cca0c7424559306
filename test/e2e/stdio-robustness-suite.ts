import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_FRAME_BYTES } from "../../src/mcp/stdio-transport.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, rawSession, requestLine, type ServerTarget } from "../helpers/server.ts";

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const parse = (lines: string[]): Reply[] => lines.map((line) => JSON.parse(line) as Reply);

/** Enough skill files that the first load takes a while: requests read before it ends are in flight. */
const SLOW_LOAD_FILES = 400;

/**
 * Hostile frames and signals over real stdio (issue 11, items 5 and 14, and bounded error
 * quoting): each is answered as JSON-RPC 2.0 and MCP prescribe, and the server goes on.
 */
export function stdioRobustnessSuite(target: ServerTarget): void {
  describe(`stdio robustness (${target.name})`, () => {
    let fixture: Fixture;
    beforeAll(() => {
      const files: Record<string, string> = {
        ".skills/echo.yaml": "id: echo\ndescription: Echoes its arguments\ntype: tool\ninputSchema: { type: object }\n",
      };
      for (let i = 0; i < SLOW_LOAD_FILES; i++)
        files[`.skills/bulk/s${i}.yaml`] =
          `id: bulk-${i}\ndescription: Skill ${i}\ntype: prompt\ntags: [t${i % 7}]\nprompt: Body {{x}} ${i}\n`;
      fixture = makeFixture(files);
    });
    afterAll(() => fixture?.cleanup());

    // Writing and scanning 16 MiB takes a while on a loaded two-core machine.
    test("an oversized frame whose id comes after params (the SDK's key order) is answered with that id", {
      timeout: 30_000,
    }, async () => {
      // A nested "id" inside params must not be taken for the frame's.
      const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"id":"inner","x":"${"y".repeat(MAX_FRAME_BYTES + 10)}"}},"id":"late"}`;
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), huge, requestLine(2, "tools/list")],
        3,
        { timeoutMs: 25_000 },
      );
      const replies = parse(raw.stdout);
      expect(replies.find((r) => r.id === "late")?.error).toEqual({
        code: -32600,
        message: "Request too large: frames are limited to 16 MiB",
      });
      expect(replies.some((r) => r.id === "inner")).toBe(false);
      expect(replies.some((r) => r.id === 2 && r.result !== undefined)).toBe(true);
    });

    test("an oversized frame with an unusable id (null) is answered with id null", { timeout: 30_000 }, async () => {
      const huge = `{"jsonrpc":"2.0","method":"ping","params":{"x":"${"y".repeat(MAX_FRAME_BYTES + 10)}"},"id":null}`;
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), huge, requestLine(2, "ping")],
        3,
        { timeoutMs: 25_000 },
      );
      const replies = parse(raw.stdout);
      expect(replies.find((r) => r.id === null)?.error?.code).toBe(-32600);
      expect(replies.some((r) => r.id === 2 && r.result !== undefined)).toBe(true);
    });

    test("a request with id null, an object, an array, a boolean or a fraction gets -32600 with id null; the server goes on", async () => {
      const bad = [null, { a: 1 }, [1], true, 1.5].map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), ...bad, requestLine(2, "ping")],
        7,
      );
      const replies = parse(raw.stdout);
      const refused = replies.filter((r) => r.id === null);
      expect(refused).toHaveLength(5);
      for (const reply of refused)
        expect(reply.error).toEqual({ code: -32600, message: "Invalid Request: id must be a string or an integer" });
      expect(replies.find((r) => r.id === 2)?.result).toEqual({});
    });

    test("an initialize with malformed params gets -32602 naming the field, like every other method (found by the fuzzer: it was -32603 and a dump)", async () => {
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [
          requestLine(1, "initialize", { protocolVersion: "2025-11-25", clientInfo: { name: "x", version: "0" } }),
          requestLine(2, "initialize", {
            protocolVersion: 5,
            capabilities: {},
            clientInfo: { name: "x", version: "0" },
          }),
          initializeLine(3),
          requestLine(4, "initialize", { capabilities: [] }),
        ],
        4,
      );
      const byId = new Map(parse(raw.stdout).map((r) => [r.id, r]));
      expect(byId.get(1)?.error).toEqual({
        code: -32602,
        message: "Invalid params for initialize: capabilities: Invalid input: expected object, received undefined",
      });
      expect(byId.get(2)?.error).toEqual({
        code: -32602,
        message: "Invalid params for initialize: protocolVersion: Invalid input: expected string, received number",
      });
      expect(byId.get(3)?.result).toBeDefined();
      expect(byId.get(4)?.error?.code).toBe(-32602);
      expect(byId.get(4)?.error?.message).toStartWith("Invalid params for initialize: protocolVersion: ");
    });

    test("a line that is not JSON is quoted in the warning, escaped and capped: it cannot move the cursor or forge a line", async () => {
      const hostile = `not json \r\u001b[2K[skill-central] forged ${"z".repeat(200)}`;
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), hostile, requestLine(2, "tools/list")],
        2,
      );
      expect(parse(raw.stdout).some((r) => r.id === 2 && r.result !== undefined)).toBe(true);
      const warning = raw.stderr.split("\n").find((line) => line.includes("ignored a line on stdin that is not JSON"));
      expect(warning).toContain('"not json \\r\\u001b[2K[skill-central] forged zzz');
      expect(warning).toContain("…(");
      expect(raw.stderr).not.toContain("\r");
      expect(raw.stderr).not.toContain("\u001b");
    });

    test("a JSON-RPC batch (an array, even empty) gets one -32600 with id null, and none of its requests runs", async () => {
      const batch = JSON.stringify([
        { jsonrpc: "2.0", id: 10, method: "ping" },
        { jsonrpc: "2.0", id: 11, method: "tools/list" },
      ]);
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), batch, "[]", requestLine(2, "ping")],
        4,
      );
      const replies = parse(raw.stdout);
      const refused = replies.filter((r) => r.id === null);
      expect(refused).toHaveLength(2);
      for (const reply of refused) {
        expect(reply.error?.code).toBe(-32600);
        expect(reply.error?.message).toContain("batches are not supported");
      }
      expect(replies.some((r) => r.id === 10 || r.id === 11)).toBe(false);
      expect(replies.find((r) => r.id === 2)?.result).toEqual({});
    });

    test("error replies quote client input once, capped with an ellipsis", { timeout: 15_000 }, async () => {
      const long = "n".repeat(1_000_000);
      const uri = `skill-central://skills/${long}`;
      const raw = await rawSession(
        target,
        fixture.cwd,
        fixture.home,
        [
          initializeLine(1),
          requestLine(2, "prompts/get", { name: long }),
          requestLine(3, "tools/call", { name: long, arguments: {} }),
          requestLine(4, "resources/read", { uri }),
          requestLine(5, "completion/complete", {
            ref: { type: "ref/prompt", name: long },
            argument: { name: "a", value: "" },
          }),
          requestLine(6, "resources/read", { uri: "skill-central://skills/nope" }),
        ],
        6,
      );
      const byId = new Map(parse(raw.stdout).map((r) => [r.id, r]));
      for (const id of [2, 3, 4, 5]) {
        const error = byId.get(id)?.error;
        expect(error?.code).toBe(-32602);
        expect(error!.message.length).toBeLessThan(600);
        expect(error!.message).toContain("nnnn…");
        expect(error!.message.split("nnnn").length).toBeLessThanOrEqual(2 + Math.ceil(500 / 4));
        expect(JSON.stringify(error).length).toBeLessThan(1_000);
      }
      expect(byId.get(4)?.error?.message).toStartWith("Unknown resource: skill-central://skills/nnn");
      expect(byId.get(4)?.error?.message.match(/skill-central:\/\//g)).toHaveLength(1);
      // A URI of a plausible length is echoed whole in data (SEP-2164).
      expect(byId.get(6)?.error).toEqual({
        code: -32602,
        message: "Unknown resource: skill-central://skills/nope (no skill has that id)",
        data: { uri: "skill-central://skills/nope" },
      });
    });

    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      test(`${signal}: a request already read is answered, then the process exits 0`, { timeout: 15_000 }, async () => {
        const proc = Bun.spawn([target.command, ...target.args], {
          cwd: fixture.cwd,
          env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        // One write: initialize is answered at once, prompts/list waits for the first load.
        proc.stdin.write(`${initializeLine(1)}\n${requestLine(2, "prompts/list")}\n`);
        await proc.stdin.flush();
        const reader = proc.stdout.getReader();
        const decoder = new TextDecoder();
        let out = "";
        while (!out.includes('"id":1')) {
          const { value, done } = await reader.read();
          if (done) break;
          out += decoder.decode(value, { stream: true });
        }
        proc.kill(signal);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          out += decoder.decode(value, { stream: true });
        }
        expect(await proc.exited).toBe(0);
        const replies = parse(out.split("\n").filter(Boolean));
        const listed = replies.find((r) => r.id === 2)?.result as { prompts: unknown[] } | undefined;
        expect(listed?.prompts.length).toBeGreaterThan(SLOW_LOAD_FILES);
      });
    }
  });
}
