import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill, type Remote } from "../helpers/git-remote.ts";
import { SOURCE_ENTRY } from "../helpers/server.ts";
import { runCommand, type CliRun } from "./cli-run.ts";

/**
 * `skill-central sync` on a terminal draws one progress line per layer on stderr, rewritten in
 * place as each step starts (fetching, writing and verifying the copy, asking the remote) and
 * left as "done: …"; with stderr not a terminal it prints nothing there. The terminal is a real
 * pseudo-terminal (Bun.spawn's `terminal` option) holding stderr, while stdout goes to a file,
 * so the report can be compared with the one printed without a terminal.
 */

let fixture: Fixture;
let remote: Remote;
beforeEach(() => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
});
afterEach(() => fixture.cleanup());

const CLEAR = "\r\x1b[2K";
const env = (): Record<string, string> => ({ HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" });

/** Runs the command with stderr (and stdin) on a pseudo-terminal and stdout into a file. */
async function onTerminal(command: string[], cols = 200): Promise<{ code: number; screen: string; stdout: string }> {
  const out = join(fixture.root, "stdout.txt");
  let screen = "";
  let closed: () => void = () => {};
  const eof = new Promise<void>((resolve) => (closed = resolve));
  const proc = Bun.spawn(["sh", "-c", 'out="$1"; shift; exec "$@" > "$out"', "sh", out, ...command], {
    cwd: fixture.cwd,
    env: env(),
    terminal: {
      cols,
      rows: 24,
      data(_terminal, bytes) {
        screen += new TextDecoder().decode(bytes);
      },
      exit: () => closed(),
    },
  });
  try {
    const code = await proc.exited;
    // Everything the program wrote reaches us before the terminal's end of file.
    await eof;
    return { code, screen, stdout: readFileSync(out, "utf8") };
  } finally {
    proc.terminal?.close();
  }
}

function piped(command: string[]): Promise<CliRun> {
  return runCommand(command, fixture.cwd, env());
}

const TARGETS: { name: string; command: () => Promise<string[]> }[] = [
  { name: "source", command: async () => [process.execPath, SOURCE_ENTRY] },
  { name: "binary", command: async () => [await buildForTests()] },
];

for (const target of TARGETS) {
  describe(`sync progress (${target.name})`, () => {
    test("on a terminal: one line per layer, rewritten in place through its steps, ending in done", async () => {
      const cli = await target.command();
      const commit = remote.commit({ "skills/review.yaml": skill("review") });
      const short = commit.slice(0, 12);
      fixture.write(
        "skill-central.yaml",
        `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills }\n  - { name: whole, priority: 60, git: ${remote.url}, ref: main }\n`,
      );

      const first = await onTerminal([...cli, "sync"]);
      expect(first.code).toBe(0);
      const layer = (n: string, name: string, steps: string[]) =>
        `${steps.map((s) => `${CLEAR}[${n}/2] ${name}: ${s}`).join("")}\r\n`;
      expect(first.screen).toBe(
        layer("1", "team", [
          `fetching main from ${remote.url}`,
          `writing and verifying the copy of ${short}`,
          `done: locked at ${short}`,
        ]) +
          layer("2", "whole", [
            `fetching main from ${remote.url}`,
            `writing and verifying the copy of ${short}`,
            `done: locked at ${short}`,
          ]),
      );
      expect(first.stdout).toContain(`team  ${remote.url} main, skills/\n  locked at ${short}\n`);

      // Already synced: the local copy is checked and the remote asked whether the ref moved.
      const again = await onTerminal([...cli, "sync"]);
      expect(again.code).toBe(0);
      expect(again.screen).toBe(
        layer("1", "team", [
          `checking the local copy of ${short}`,
          `asking ${remote.url} whether main moved`,
          `done: up to date at ${short}`,
        ]) +
          layer("2", "whole", [
            `checking the local copy of ${short}`,
            `asking ${remote.url} whether main moved`,
            `done: up to date at ${short}`,
          ]),
      );
      // The report is the same as without a terminal.
      const plain = await piped([...cli, "sync"]);
      expect(again.stdout).toBe(plain.stdout);
    }, 120_000);

    test("not on a terminal: nothing on stderr, and a failing layer still gets its done line on one", async () => {
      const cli = await target.command();
      remote.commit({ "skills/review.yaml": skill("review") });
      fixture.write(
        "skill-central.yaml",
        `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main }\n`,
      );
      const quiet = await piped([...cli, "sync"]);
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).toBe("");
      expect(quiet.stdout).toContain("locked at");

      fixture.write(
        "skill-central.yaml",
        `builtin: false\nlayers:\n  - { name: gone, priority: 50, git: ${remote.url}-missing, ref: main }\n`,
      );
      const failed = await onTerminal([...cli, "sync"], 60);
      expect(failed.code).toBe(1);
      const lines = failed.screen.split("\r\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      const last = lines[0]!.split(CLEAR).pop()!;
      expect(last).toStartWith("[1/1] gone: done: failed: ");
      // Cut to the terminal's width, so that \r redraws the whole line.
      expect(last.length).toBeLessThanOrEqual(59);
      expect(failed.stdout).toContain("failed: ");
    }, 120_000);
  });
}
