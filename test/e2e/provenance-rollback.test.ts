import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { gitSync, makeRemote, skill, type Remote } from "../helpers/git-remote.ts";
import { hasSshKeygen, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";
import { runCli } from "./cli-run.ts";

/**
 * Signed git layers over time (docs/provenance.md), through the real CLI with real git and
 * signed commits: `sync --update` refuses a commit older than the locked one (an ancestor: the
 * branch reset to an old, validly signed commit) unless `--allow-downgrade`; a plain `sync`
 * never suggests an update it would refuse, and says why instead; a successful sync names the
 * key that verified the commit; a layer's `revoked` file refuses its keys' signatures, as git's
 * `gpg.ssh.revocationFile` does.
 */

let fixture: Fixture;
let remote: Remote;
let alice: TestKey;
let bob: TestKey;

beforeEach(() => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
  const keys = join(fixture.root, "keys");
  mkdirSync(keys, { recursive: true });
  alice = makeKey(keys, "alice");
  bob = makeKey(keys, "bob");
});
afterEach(() => fixture.cleanup());

function project(signers: string, extra = ""): void {
  fixture.write("team.allowed_signers", signers);
  fixture.write(
    "skill-central.yaml",
    `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills, signers: team.allowed_signers${extra} }\n`,
  );
}

const sync = (...args: string[]) => runCli(["sync", ...args], fixture.cwd, fixture.home, { NO_COLOR: "1" });
const lock = () => JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).layers.team;
const short = (commit: string) => commit.slice(0, 12);
const resetMain = (commit: string) => gitSync(["update-ref", "refs/heads/main", commit], { cwd: remote.dir });

describe("git layers: rollback protection and what sync says", () => {
  test("sync --update refuses an older signed commit (an ancestor of the locked one), naming both; plain sync does not suggest it; --allow-downgrade takes it", async () => {
    project(signerLine("alice@example.com", alice));
    const v1 = remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await sync()).code).toBe(0);
    const v2 = remote.commit({ "skills/review.yaml": skill("review", "Review v2") }, { signWith: alice.file });
    const updated = await sync("--update");
    expect(updated.code).toBe(0);
    // The key that verified the commit is named on success.
    expect(updated.stdout).toContain(
      `${short(v1)} → ${short(v2)}\n  signed by alice@example.com (${alice.fingerprint})\n`,
    );
    expect(lock().commit).toBe(v2);

    // The host now serves v1 again: validly signed, but older than what is locked.
    resetMain(v1);
    const refused = await sync("--update");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `failed: ${short(v1)} is older than the locked commit ${short(v2)} (an ancestor of it)`,
    );
    expect(refused.stdout).toContain("`skill-central sync --update team --allow-downgrade` takes it if that is meant");
    expect(lock().commit).toBe(v2);

    // Plain sync keeps the lock, and says what --update would refuse instead of suggesting it.
    const plain = await sync();
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`signed by alice@example.com (${alice.fingerprint})`);
    expect(plain.stdout).toContain(
      `note: main is now at ${short(v1)}, which \`skill-central sync --update\` refuses: ${short(v1)} is older than the locked commit ${short(v2)}`,
    );
    expect(plain.stdout).toContain(`the lock stays at ${short(v2)}`);
    expect(plain.stdout).not.toContain("moves the lock there");

    const allowed = await sync("--update", "team", "--allow-downgrade");
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain(`${short(v2)} → ${short(v1)}`);
    expect(lock().commit).toBe(v1);
  });

  test("a branch that moved on to a commit that is not a descendant (a rewritten history) is not a downgrade", async () => {
    project(signerLine("alice@example.com", alice));
    remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await sync()).code).toBe(0);
    const other = remote.commit(
      { "skills/review.yaml": skill("review", "Rewritten") },
      { signWith: alice.file, orphan: true },
    );
    const updated = await sync("--update");
    expect(updated.stdout + updated.stderr).not.toContain("older than");
    expect(updated.code).toBe(0);
    expect(lock().commit).toBe(other);
  });

  test("after sync --update refuses an unsigned commit, plain sync says what was refused and why, never suggesting it", async () => {
    project(signerLine("alice@example.com", alice));
    const good = remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await sync()).code).toBe(0);
    const unsigned = remote.commit({ "skills/review.yaml": skill("review", "Unsigned") });
    expect((await sync("--update")).code).toBe(1);

    const plain = await sync();
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(
      `note: main is now at ${short(unsigned)}, which \`skill-central sync --update\` refuses: commit ${short(unsigned)} is not signed`,
    );
    expect(plain.stdout).not.toContain("sync --update team`");
    expect(lock().commit).toBe(good);
  });

  test("a tip that would be accepted is still suggested", async () => {
    project(signerLine("alice@example.com", alice));
    remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await sync()).code).toBe(0);
    const next = remote.commit({ "skills/review.yaml": skill("review", "Review v2") }, { signWith: alice.file });
    const plain = await sync();
    expect(plain.stdout).toContain(
      `note: main is now at ${short(next)}; \`skill-central sync --update team\` moves the lock there`,
    );
  });

  test("revoked: a listed key's signatures are refused, naming its fingerprint and the line; git verify-commit with gpg.ssh.revocationFile agrees", async () => {
    const signers = `${signerLine("alice@example.com", alice)}${signerLine("bob@example.com", bob)}`;
    project(signers, ", revoked: revoked_keys");
    fixture.write("revoked_keys", `# keys that left the team\n${alice.publicLine}\n`);
    const commit = remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    const refused = await sync();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `failed: commit ${short(commit)} is signed by ${alice.fingerprint}, a key revoked in revoked_keys (line 2); this layer refuses its signatures`,
    );
    if (hasSshKeygen) {
      const verify = (revoked: string) =>
        Bun.spawnSync(
          [
            "git",
            "-c",
            `gpg.ssh.allowedSignersFile=${join(fixture.cwd, "team.allowed_signers")}`,
            "-c",
            `gpg.ssh.revocationFile=${revoked}`,
            "verify-commit",
            commit,
          ],
          { cwd: remote.dir, stdout: "pipe", stderr: "pipe" },
        ).exitCode;
      expect(verify(join(fixture.cwd, "revoked_keys"))).not.toBe(0);
      fixture.write("empty_revoked", "# none\n");
      expect(verify(join(fixture.cwd, "empty_revoked"))).toBe(0);
    }

    // Bob's key is not revoked: his commit is taken.
    const bobs = remote.commit({ "skills/review.yaml": skill("review", "By Bob") }, { signWith: bob.file });
    const ok = await sync();
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`signed by bob@example.com (${bob.fingerprint})`);
    expect(lock().commit).toBe(bobs);
  });

  test("a revoked file that cannot be used refuses the layer: a line that is not a key, a missing file, a KRL", async () => {
    project(signerLine("alice@example.com", alice), ", revoked: revoked_keys");
    remote.commit({ "skills/review.yaml": skill("review") }, { signWith: alice.file });
    expect((await sync()).stdout).toContain("the revoked-keys file revoked_keys does not exist");

    fixture.write("revoked_keys", `${bob.publicLine}\nnot a key\n`);
    const bad = await sync();
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("the revoked-keys file revoked_keys cannot be used: line 2 is not a public key");

    if (hasSshKeygen) {
      const krl = join(fixture.cwd, "revoked_keys");
      const made = sshKeygen(["-k", "-f", krl, `${bob.file}.pub`]);
      expect(made.code).toBe(0);
      const refused = await sync();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(
        "is an OpenSSH KRL (binary key revocation list), which skill-central does not read",
      );
    }
  });

  test("--allow-downgrade goes with sync and sync --update only", async () => {
    project(signerLine("alice@example.com", alice));
    for (const mode of ["--check", "--frozen"]) {
      const run = await sync(mode, "--allow-downgrade");
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--allow-downgrade goes with sync or sync --update, not --check or --frozen");
    }
  });
});
