import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { MAX_FRAME_BYTES } from "../../src/mcp/stdio-transport.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, rawSession, REPO_ROOT, requestLine, SOURCE_TARGET } from "../helpers/server.ts";

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({
    ".skills/echo.yaml": "id: echo\ndescription: Echoes its arguments\ntype: tool\ninputSchema: { type: object }\n",
    ".skills/bad-yaml.yaml": "id: x\n  description: [\n",
    ".skills/bad-helper.yaml": "id: bad-helper\ndescription: d\ntype: prompt\nprompt: '{{log \"to stdout?\"}}'\n",
    ".skills/bad-schema.yaml":
      "id: bad-schema\ndescription: d\ntype: tool\ninputSchema: { type: object, properties: { a: { type: strnig } } }\n",
  });
});
afterAll(() => fixture.cleanup());

const target = SOURCE_TARGET;

function parseAll(
  lines: string[],
): { id?: number | string; result?: unknown; error?: { code: number; message: string } }[] {
  return lines.map((line) => JSON.parse(line));
}

describe("stdout carries JSON-RPC frames only", () => {
  test("every stdout line is a JSON-RPC message, while broken skill files produce warnings", async () => {
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), requestLine(2, "prompts/list"), requestLine(3, "tools/list")],
      3,
    );
    expect(raw.stdout.length).toBe(3);
    for (const line of raw.stdout) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    expect(raw.stderr).toContain("bad-yaml.yaml:");
    expect(raw.stderr).toContain("bad-helper.yaml:");
    expect(raw.stderr).toContain("bad-schema.yaml:");
  });

  test("console.log, info and debug are redirected to stderr before anything else runs", async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import ${JSON.stringify(join(REPO_ROOT, "src", "stdio-guard.ts"))}; console.log("a"); console.info("b"); console.debug("c");`,
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(await new Response(proc.stdout).text()).toBe("");
    expect(await new Response(proc.stderr).text()).toBe("a\nb\nc\n");
  });

  test("the CLI entry imports the guard first", async () => {
    const source = await Bun.file(join(REPO_ROOT, "src", "cli.ts")).text();
    const firstImport = source.split("\n").find((l) => l.startsWith("import "));
    expect(firstImport).toBe('import "./stdio-guard.ts";');
  });

  test("no module under src/ calls console.log (stdout is the protocol channel)", async () => {
    const offenders: string[] = [];
    for await (const file of new Glob("src/**/*.ts").scan(REPO_ROOT)) {
      const text = await Bun.file(join(REPO_ROOT, file)).text();
      text.split("\n").forEach((line, i) => {
        if (
          /console\.(log|info|debug)\(/.test(line) &&
          !line.trim().startsWith("//") &&
          !file.endsWith("stdio-guard.ts")
        )
          offenders.push(`${file}:${i + 1}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});

describe("bad input never stops the server", () => {
  test("a line of garbage is skipped with a warning and the next request is answered", async () => {
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), "this is not json", '{"half": ', '{"jsonrpc":"2.0"}', requestLine(2, "tools/list")],
      2,
    );
    const messages = parseAll(raw.stdout);
    expect(messages.map((m) => m.id)).toEqual([1, 2]);
    expect(raw.stderr).toContain("not JSON");
  });

  test("a JSON line that is not a JSON-RPC request but has an id gets -32600", async () => {
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), '{"id": 7, "hello": "world"}', requestLine(2, "tools/list")],
      3,
    );
    const err = parseAll(raw.stdout).find((m) => m.id === 7);
    expect(err?.error?.code).toBe(-32600);
  });

  test("an oversized frame gets a JSON-RPC error and the server goes on", async () => {
    const huge = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"x":"${"y".repeat(MAX_FRAME_BYTES + 10)}"}}}`;
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), huge, requestLine(2, "tools/list")],
      3,
      { timeoutMs: 25000 },
    );
    const messages = parseAll(raw.stdout);
    expect(messages.find((m) => m.id === "big")?.error).toEqual({
      code: -32600,
      message: "Request too large: frames are limited to 16 MiB",
    });
    expect(messages.some((m) => m.id === 2 && m.result !== undefined)).toBe(true);
  });

  test("an oversized frame without an id is a stderr warning", async () => {
    const huge = `{"jsonrpc":"2.0","method":"notifications/x","params":{"x":"${"y".repeat(MAX_FRAME_BYTES + 10)}"}}`;
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), huge, requestLine(2, "tools/list")],
      2,
      { timeoutMs: 25000 },
    );
    expect(parseAll(raw.stdout).map((m) => m.id)).toEqual([1, 2]);
    expect(raw.stderr).toContain("over the 16 MiB limit");
  });
});

describe("lifecycle", () => {
  test("when stdin closes, in-flight requests finish, a large response arrives whole, and the process exits 0", async () => {
    const payload = "z".repeat(5 * 1024 * 1024);
    const raw = await rawSession(
      target,
      fixture.cwd,
      fixture.home,
      [initializeLine(1), requestLine(2, "tools/call", { name: "echo", arguments: { payload } })],
      0,
      { closeRightAway: true },
    );
    expect(raw.exitCode).toBe(0);
    const response = parseAll(raw.stdout).find((m) => m.id === 2) as
      | { result: { content: { text: string }[] } }
      | undefined;
    expect(response).toBeDefined();
    expect(JSON.parse(response!.result.content[0]!.text)).toEqual({ payload });
  });

  // A handle left open (a watcher, a timer) would keep it running to this test's timeout.
  test("with nothing in flight, stdin EOF exits 0", async () => {
    const raw = await rawSession(target, fixture.cwd, fixture.home, [initializeLine(1)], 1);
    expect(raw.exitCode).toBe(0);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} exits cleanly`, async () => {
      const proc = Bun.spawn([target.command, ...target.args], {
        cwd: fixture.cwd,
        env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      proc.stdin.write(`${initializeLine(1)}\n`);
      await proc.stdin.flush();
      const reader = proc.stdout.getReader();
      await reader.read();
      proc.kill(signal);
      expect(await proc.exited).toBe(0);
    });
  }
});
