import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseLoadTiming } from "../../bench/lib/load-timing.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, requestLine, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * A client writes `initialize` as soon as it spawns the server. The server reads that line before
 * it opens the start-up index and starts the first load (both keep its one thread busy), so the
 * handshake is answered at once; a client that writes nothing does not hold the load back.
 */
let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({ ".skills/a.yaml": "id: a\ndescription: A prompt\ntype: prompt\nprompt: Hello\n" });
});
afterAll(() => fixture.cleanup());

function spawnServer() {
  return Bun.spawn([SOURCE_TARGET.command, ...SOURCE_TARGET.args, "--no-watch", "--debug-timing"], {
    cwd: fixture.cwd,
    env: {
      HOME: fixture.home,
      PATH: process.env.PATH ?? "",
      SKILL_CENTRAL_CACHE: "on",
      XDG_CACHE_HOME: join(fixture.root, "xdg"),
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("the client's first line", () => {
  test("is read before the start-up index is opened and the first load starts", async () => {
    const proc = spawnServer();
    proc.stdin.write(`${initializeLine(1)}\n${requestLine(2, "prompts/list")}\n`);
    proc.stdin.end();
    const [out, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(await proc.exited).toBe(0);
    expect(
      out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).id),
    ).toEqual([1, 2]);
    const since = parseLoadTiming(stderr)?.sinceStart ?? {};
    expect(Object.keys(since).slice(0, 4)).toEqual([
      "mcp command",
      "first line read",
      "index opened",
      "first load done",
    ]);
    expect(since["first line read"]!).toBeLessThanOrEqual(since["index opened"]!);
  });

  test("is not waited for: a client that stays silent finds the skills loaded when it speaks", async () => {
    const proc = spawnServer();
    const reader = proc.stderr.getReader();
    const decoder = new TextDecoder();
    let stderr = "";
    // The first load finishes with nothing written to stdin.
    while (!/\] loaded \d+ ids/.test(stderr)) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
    expect(stderr).toMatch(/\] loaded \d+ ids/);
    expect(parseLoadTiming(stderr)?.sinceStart["first line read"]).toBeUndefined();
    proc.stdin.write(`${initializeLine(1)}\n${requestLine(2, "prompts/get", { name: "a" })}\n`);
    proc.stdin.end();
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const get = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .find((m) => m.id === 2);
    expect(get.result.messages[0].content.text).toBe("Hello");
  });

  test("an edit made right after initialize is answered is served, whichever way it races the first load", async () => {
    const proc = Bun.spawn([SOURCE_TARGET.command, ...SOURCE_TARGET.args, "--debug-timing"], {
      cwd: fixture.cwd,
      env: {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
        SKILL_CENTRAL_CACHE: "on",
        XDG_CACHE_HOME: join(fixture.root, "xdg"),
      },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    const reply = async (id: number): Promise<{ result?: { messages: { content: { text: string } }[] } }> => {
      for (;;) {
        const line = buffered.split("\n").find((l) => l.startsWith("{") && JSON.parse(l).id === id);
        if (line) return JSON.parse(line);
        const { value, done } = await reader.read();
        if (done) throw new Error("the server closed stdout");
        buffered += decoder.decode(value, { stream: true });
      }
    };
    try {
      proc.stdin.write(`${initializeLine(1)}\n`);
      await reply(1);
      fixture.write(".skills/a.yaml", "id: a\ndescription: A prompt\ntype: prompt\nprompt: Edited\n");
      let text = "";
      // Until the edit is served, however long a busy machine takes (the test's timeout bounds it).
      for (let id = 2; text !== "Edited"; id++) {
        proc.stdin.write(`${requestLine(id, "prompts/get", { name: "a" })}\n`);
        text = (await reply(id)).result?.messages[0]?.content.text ?? "";
        if (text !== "Edited") await Bun.sleep(25);
      }
      expect(text).toBe("Edited");
    } finally {
      proc.kill();
      await proc.exited;
      fixture.write(".skills/a.yaml", "id: a\ndescription: A prompt\ntype: prompt\nprompt: Hello\n");
    }
  });
});
