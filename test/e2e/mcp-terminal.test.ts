import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VERSION } from "../../src/version.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { rawSession, SOURCE_ENTRY, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * `skill-central mcp` typed into a terminal waits for a client that will never come from there:
 * it says so in one line on stderr. Started by an IDE (stdin a pipe), it says nothing.
 * The terminal is a real pseudo-terminal (Bun.spawn's `terminal` option).
 */

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({ ".skills/hello.yaml": promptSkill("hello"), ".skills/team/wave.yaml": promptSkill("wave") });
});
afterAll(() => fixture.cleanup());

const GREETING = `[skill-central] skill-central ${VERSION}: serving 2 skills (2 prompts, 0 tools) from 1 layer (project); waiting for an MCP client on stdin; Ctrl-C to stop`;

describe("mcp in a terminal", () => {
  test("prints one line (version, skills served, layers, what it waits for), then stops on Ctrl-C", async () => {
    let screen = "";
    let greeted: () => void = () => {};
    const seen = new Promise<void>((resolve) => (greeted = resolve));
    const proc = Bun.spawn([process.execPath, SOURCE_ENTRY, "mcp", "--no-builtin"], {
      cwd: fixture.cwd,
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
      terminal: {
        cols: 400,
        rows: 24,
        data(_terminal, bytes) {
          screen += new TextDecoder().decode(bytes);
          if (screen.includes("Ctrl-C to stop")) greeted();
        },
      },
    });
    try {
      await seen;
      // Nothing else arrives while it waits.
      await Bun.sleep(300);
      expect(screen).toBe(`${GREETING}\r\n`);
      proc.terminal!.write("\x03");
      expect(await proc.exited).toBe(0);
    } finally {
      proc.kill();
      proc.terminal?.close();
    }
  }, 30_000);
});

test("mcp with stdin a pipe (an IDE) prints nothing on stderr", async () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "prompts/list" });
  const session = await rawSession(SOURCE_TARGET, fixture.cwd, fixture.home, [`${initialize}\n`, `${list}\n`], 2);
  expect(session.stdout).toHaveLength(2);
  expect(session.stderr).toBe("");
  expect(session.exitCode).toBe(0);
});
