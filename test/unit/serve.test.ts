import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runBounded } from "../helpers/processes.ts";
import { REPO_ROOT } from "../helpers/server.ts";
import { DRAIN_DEADLINE_MS } from "../../src/serve/drain.ts";
import { HTTP_DRAIN_MS, HTTP_EXIT_DEADLINE_MS } from "../../src/serve/http.ts";
import { createLogger } from "../../src/serve/log.ts";
import { STREAMS_CLOSE_MS } from "../../src/mcp/http/index.ts";

describe("the operator's log", () => {
  test("every line is prefixed and ends with a newline; debug lines only with --debug-timing", () => {
    const written: string[] = [];
    const quiet = createLogger({}, (text) => written.push(text));
    quiet.info("serving");
    quiet.warn("a file is broken");
    quiet.debug("loaded in 3 ms");
    expect(written).toEqual(["[skill-central] serving\n", "[skill-central] a file is broken\n"]);
    expect(quiet.debugging).toBe(false);
    const loud = createLogger({ debug: true }, (text) => written.push(text));
    loud.debug("loaded in 3 ms");
    expect(written.at(-1)).toBe("[skill-central] loaded in 3 ms\n");
    expect(loud.debugging).toBe(true);
  });

  test("a load's report is one write of prefixed lines (text) or of one record per line (json); nothing for none", () => {
    const written: string[] = [];
    const text = createLogger({}, (t) => written.push(t));
    text.infoAll([]);
    text.infoAll(["a.yaml: warning: one", "b.yaml: warning: two"]);
    expect(written).toEqual(["[skill-central] a.yaml: warning: one\n[skill-central] b.yaml: warning: two\n"]);
    const json = createLogger({ format: "json" }, (t) => written.push(t));
    json.infoAll(["one", "two"]);
    const records = written
      .at(-1)!
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(written).toHaveLength(2);
    expect(records.map((r) => [r.level, r.message])).toEqual([
      ["info", "one"],
      ["info", "two"],
    ]);
    expect(typeof records[0].time).toBe("string");
  });
});

describe("one drain deadline", () => {
  test("stdio exits within a second; HTTP's deadlines derive from the same one and end within two", () => {
    expect(DRAIN_DEADLINE_MS).toBeLessThan(1000);
    expect(HTTP_DRAIN_MS).toBeGreaterThan(DRAIN_DEADLINE_MS);
    expect(HTTP_EXIT_DEADLINE_MS).toBeGreaterThanOrEqual(HTTP_DRAIN_MS + STREAMS_CLOSE_MS);
    expect(HTTP_EXIT_DEADLINE_MS).toBeLessThan(2000);
  });
});

describe("the stop sequence, in a real process", () => {
  /** A process whose drain never ends (a busy machine, a client that stops reading) and whose skills say when closed. */
  const script = (how: string) => `
import { stopSequence } from ${JSON.stringify(join(REPO_ROOT, "src", "serve", "drain.ts"))};
const skills = {
  live: { close() { process.stdout.write("watchers closed\\n"); } },
  close() { process.stdout.write("uses and index written\\n"); },
};
const stop = stopSequence({ deadlineMs: 50, drain: () => new Promise(() => {}), skills: () => skills });
${how}
setInterval(() => {}, 1000);
`;

  test("the deadline still closes the skills (the pending uses are written) before the process exits 0", async () => {
    const run = await runBounded([process.execPath, "-e", script("void stop();")], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 20_000,
    });
    expect({ code: run.code, out: run.stdout }).toEqual({ code: 0, out: "watchers closed\nuses and index written\n" });
  });

  test("a deadline armed early (a signal over stdio) closes the skills too, once", async () => {
    const run = await runBounded([process.execPath, "-e", script("stop.arm(); stop.arm();")], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 20_000,
    });
    expect({ code: run.code, out: run.stdout }).toEqual({ code: 0, out: "watchers closed\nuses and index written\n" });
  });
});
