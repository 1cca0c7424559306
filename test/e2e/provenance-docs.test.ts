import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture } from "../helpers/fixture.ts";
import { gitSync, makeRemote, skill } from "../helpers/git-remote.ts";
import { REPO_ROOT, SOURCE_ENTRY } from "../helpers/server.ts";
import { hasSshKeygen, sshKeygen } from "../helpers/ssh-keys.ts";
import { runCli, runCommand } from "./cli-run.ts";

/**
 * docs/provenance.md's three-command setup, run as written (its first `sh` block, in bash, in a
 * skills repository, with `skill-central` on PATH): the key it makes signs the next commit, which
 * a layer naming its allowed_signers syncs, and the index it publishes, which ssh-keygen verifies.
 */

const fixture = makeFixture();
afterAll(() => fixture.cleanup());

describe.skipIf(!hasSshKeygen)("docs/provenance.md", () => {
  test("the three-command setup signs commits and an index that sync and ssh-keygen accept", async () => {
    const doc = readFileSync(join(REPO_ROOT, "docs", "provenance.md"), "utf8");
    const block = /```sh\n([\s\S]*?)```/.exec(doc)![1]!;
    const remote = makeRemote(join(fixture.root, "srv"));
    remote.commit({ "skills/first.yaml": skill("first") });
    const work = join(fixture.root, "work");
    gitSync(["clone", "--quiet", remote.dir, work]);
    mkdirSync(join(fixture.home, ".ssh"), { recursive: true });
    const bin = join(fixture.root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "skill-central"), `#!/bin/sh\nexec "${process.execPath}" "${SOURCE_ENTRY}" "$@"\n`);
    chmodSync(join(bin, "skill-central"), 0o755);
    writeFileSync(
      join(work, "skill-central.yaml"),
      "builtin: false\nlayers:\n  - { name: own, priority: 10, path: skills }\n",
    );

    const setup = await runCommand(["bash", "-euo", "pipefail", "-c", block], work, {
      HOME: fixture.home,
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      GIT_CONFIG_NOSYSTEM: "1",
    });
    expect(setup.stderr).not.toContain("error");
    expect(setup.code).toBe(0);

    // The next commit is signed (commit.gpgSign), pushed, and a layer naming allowed_signers takes it.
    writeFileSync(join(work, "skills", "review.yaml"), skill("review", "Signed by the setup"));
    const git = (args: string[]) =>
      runCommand(["git", "-c", "user.name=Alice", "-c", "user.email=alice@example.com", ...args], work, {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
        GIT_CONFIG_NOSYSTEM: "1",
      });
    expect((await git(["add", "skills/review.yaml"])).code).toBe(0);
    expect((await git(["commit", "--quiet", "-m", "a signed skill"])).code).toBe(0);
    expect((await git(["push", "--quiet", "origin", "HEAD:main"])).code).toBe(0);
    writeFileSync(join(fixture.cwd, "allowed_signers"), readFileSync(join(work, "allowed_signers")));
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills, signers: allowed_signers }\n`,
    );
    const sync = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    const lock = JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8"));
    expect(lock.layers.team.signer.principal).toBe("alice@example.com");

    // The published index verifies with OpenSSH against the same file.
    const site = join(work, "public", ".well-known", "agent-skills");
    const verified = sshKeygen(
      [
        "-Y",
        "verify",
        "-f",
        join(work, "allowed_signers"),
        "-I",
        "alice@example.com",
        "-n",
        "agent-skills",
        "-s",
        join(site, "index.json.sig"),
      ],
      readFileSync(join(site, "index.json")),
    );
    expect(verified.code).toBe(0);
  });
});
