import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";

/**
 * Issue 46 item 7 on the wire, against the server `target` runs (the source entry, or the
 * compiled binary): a cloned project's config cannot switch off the audit gate the user's config
 * sets. With the user's `audit.layers: all`, a project saying `block: never`, `layers: remote`
 * and pinning the user's blocked skill serves none of it, and the server says so on stderr, one
 * line per key, naming the project's file. A project's pin of its own skill counts where the
 * user's settings do not block it. The merge rule itself: test/unit/audit-floor.test.ts.
 */

const PIPE = readFileSync(
  join(import.meta.dir, "..", "fixtures", "audit", "remote-code-pipe", "malicious", "pipe-shell", "SKILL.md"),
  "utf8",
);
const OWN_PIPE = PIPE.replace("name: pipe-shell", "name: own-pipe");
/** A folder holding only `SKILL.md` is pinned by the digest of its bytes (docs/audit.md). */
const digestOf = (text: string) => `sha256:${new Bun.CryptoHasher("sha256").update(text).digest("hex")}`;
const prompt = (id: string) => `id: ${id}\ndescription: ${id} skill\ntype: prompt\nprompt: 'Hello from ${id}'\n`;

const userConfig = (audit: string) =>
  `builtin: false\nlayers:\n  - { name: mine, path: ./mine, priority: 40 }\n${audit}`;
const projectConfig = (audit: string) => `layers:\n  - { name: team, path: ./team, priority: 50 }\naudit:\n${audit}`;
const pins = [
  `    - { skill: pipe-shell, digest: "${digestOf(PIPE)}", reason: "trust me" }`,
  `    - { skill: own-pipe, digest: "${digestOf(OWN_PIPE)}", reason: "ours" }`,
].join("\n");

function project(user: string, projectAudit: string): Fixture {
  return makeFixture({
    "~/.skill-central/config.yaml": user,
    "~/.skill-central/mine/pipe-shell/SKILL.md": PIPE,
    "~/.skill-central/mine/hello.yaml": prompt("hello"),
    "skill-central.yaml": projectConfig(projectAudit),
    "team/own-pipe/SKILL.md": OWN_PIPE,
    "team/greet.yaml": prompt("greet"),
  });
}

async function served(target: ServerTarget, fixture: Fixture): Promise<{ names: string[]; stderr: string }> {
  const server = await connect(target, fixture.cwd, fixture.home);
  try {
    const { prompts } = await server.client.listPrompts();
    return {
      names: prompts
        .map((p) => p.name)
        .filter((n) => !n.startsWith("skills:"))
        .sort(),
      stderr: server.stderr(),
    };
  } finally {
    await server.close();
  }
}

export function auditFloorSuite(target: ServerTarget): void {
  describe(`a project's config cannot loosen the user's audit gate (${target.name})`, () => {
    test("with the user's layers: all, a project's block: never, layers: remote and pin leave the user's blocked skill unserved, each said on stderr", async () => {
      const fixture = project(
        userConfig("audit:\n  layers: all\n"),
        `  block: never\n  layers: remote\n  allow:\n${pins}\n`,
      );
      try {
        const { names, stderr } = await served(target, fixture);
        // Neither the user's blocked skill nor the project's own: the user audits every layer.
        expect(names).toEqual(["greet", "hello"]);
        expect(stderr).toContain(
          "skill-central.yaml: warning: audit.block: never would loosen the gate your user config sets (block: high, by default); ignored",
        );
        expect(stderr).toContain(
          "skill-central.yaml: warning: audit.layers: remote would loosen the gate your user config sets (layers: all); ignored",
        );
        expect(stderr).toContain(
          `skill-central.yaml: warning: audit.allow entry for skill "pipe-shell" is ignored: its layer "mine" is not the project's`,
        );
        expect(stderr).toContain(
          'skill-central.yaml: warning: audit.allow entry for skill "own-pipe" is ignored: your user config audits every layer (audit.layers: all) and blocks it',
        );
        expect(stderr).toContain('warning: skill "pipe-shell" is not served: the audit blocks it (remote-code-pipe:');

        // `audit` judges as the server does: neither pin counts, so it fails on both.
        const cli = target.args.slice(0, -1);
        const audit = await runCommand([target.command, ...cli, "audit", "--format", "json"], fixture.cwd, {
          HOME: fixture.home,
          PATH: process.env.PATH ?? "",
        });
        expect(audit.code).toBe(1);
        const skills = (JSON.parse(audit.stdout) as { skills: { id: string; digest: string; allowed?: string }[] })
          .skills;
        expect(skills.filter((s) => s.id.includes("pipe")).map((s) => [s.id, s.digest, s.allowed])).toEqual([
          ["pipe-shell", digestOf(PIPE), undefined],
          ["own-pipe", digestOf(OWN_PIPE), undefined],
        ]);
        expect(audit.stderr).toContain('audit.allow entry for skill "pipe-shell" is ignored');
      } finally {
        fixture.cleanup();
      }
    }, 60_000);

    test("the user's own pin lets the skill through; a project's pin of its own skill counts where the user's settings do not block it", async () => {
      // The user audits local layers too, and has reviewed pipe-shell: served. own-pipe stays held.
      const reviewed = project(
        userConfig(
          `audit:\n  layers: all\n  allow:\n    - { skill: pipe-shell, digest: "${digestOf(PIPE)}", reason: reviewed }\n`,
        ),
        `  allow:\n${pins}\n`,
      );
      try {
        expect((await served(target, reviewed)).names).toEqual(["greet", "hello", "pipe-shell"]);
      } finally {
        reviewed.cleanup();
      }
      // The default (remote): the project's own layers: all judges every local layer, its pin of
      // its own skill counts, its pin of the user's skill does not.
      const own = project(userConfig(""), `  layers: all\n  allow:\n${pins}\n`);
      try {
        const { names, stderr } = await served(target, own);
        expect(names).toEqual(["greet", "hello", "own-pipe"]);
        expect(stderr).toContain(
          `skill-central.yaml: warning: audit.allow entry for skill "pipe-shell" is ignored: its layer "mine" is not the project's`,
        );
        expect(stderr).not.toContain("loosen");
      } finally {
        own.cleanup();
      }
    }, 60_000);
  });
}
