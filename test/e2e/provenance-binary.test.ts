import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill, type Remote } from "../helpers/git-remote.ts";
import { hasSshKeygen, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";
import { serveFolder } from "../helpers/static-host.ts";
import { runCommand } from "./cli-run.ts";

/**
 * Provenance in the compiled binary, on a PATH that has git and nothing else (no ssh-keygen):
 * signing and verifying run in process, so a machine without OpenSSH still refuses an unsigned
 * commit, accepts a signed one, signs an index and verifies it.
 */

describe("provenance in the compiled binary, without OpenSSH on PATH", () => {
  let binary: string;
  let fixture: Fixture;
  let remote: Remote;
  let alice: TestKey;
  let bin: string;
  let host: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    binary = await buildForTests();
    fixture = makeFixture();
    remote = makeRemote(join(fixture.root, "srv"));
    alice = makeKey(fixture.root, "alice");
    // Only git on PATH: no ssh-keygen for skill-central to lean on.
    bin = join(fixture.root, "bin");
    mkdirSync(bin);
    symlinkSync(Bun.which("git")!, join(bin, "git"));
    host = serveFolder(join(fixture.root, "site"));
  }, 120_000);
  afterAll(() => {
    host?.stop(true);
    fixture?.cleanup();
  });

  const run = (args: string[], cwd = fixture.cwd) =>
    runCommand([binary, ...args], cwd, { HOME: fixture.home, PATH: bin, NO_COLOR: "1" });

  test("the binary finds no ssh-keygen on its PATH", () => {
    expect(Bun.which("ssh-keygen", { PATH: bin })).toBeNull();
  });

  test("sync accepts a signed commit, records its signer, and refuses an unsigned one", async () => {
    fixture.write("team.allowed_signers", signerLine("alice@example.com", alice));
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, signers: team.allowed_signers }\n`,
    );
    const signed = remote.commit({ "review.yaml": skill("review") }, { signWith: alice.file });
    const sync = await run(["sync"]);
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain(`signed by alice@example.com (${alice.fingerprint})`);
    const lock = () => JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).layers.team;
    expect(lock()).toMatchObject({
      commit: signed,
      signer: { principal: "alice@example.com", fingerprint: alice.fingerprint },
    });

    remote.commit({ "review.yaml": skill("review", "unsigned") });
    const update = await run(["sync", "--update"]);
    expect(update.code).toBe(1);
    expect(update.stdout + update.stderr).toContain("is not signed");
    expect(lock().commit).toBe(signed);
    // Plain sync says what --update refuses rather than suggesting it.
    const plain = await run(["sync"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("which `skill-central sync --update` refuses: commit");
    expect(plain.stdout).not.toContain("moves the lock there");
  });

  test("publish --sign signs in process; a url layer with signers verifies it", async () => {
    const publisher = join(fixture.root, "publisher");
    mkdirSync(join(publisher, ".skills"), { recursive: true });
    writeFileSync(join(publisher, ".skills", "hello.yaml"), skill("hello"));
    const published = await run(["publish", join(fixture.root, "site"), "--sign", alice.file], publisher);
    expect(published.code).toBe(0);
    const index = join(fixture.root, "site", ".well-known", "agent-skills");
    if (hasSshKeygen) {
      writeFileSync(join(fixture.root, "verify"), signerLine("alice@example.com", alice));
      const args = [
        "-Y",
        "verify",
        "-f",
        join(fixture.root, "verify"),
        "-I",
        "alice@example.com",
        "-n",
        "agent-skills",
      ];
      const verified = sshKeygen(
        [...args, "-s", join(index, "index.json.sig")],
        readFileSync(join(index, "index.json")),
      );
      expect(verified.code).toBe(0);
    }

    const consumer = join(fixture.root, "consumer");
    mkdirSync(consumer);
    writeFileSync(join(consumer, "keys"), signerLine("alice@example.com", alice));
    writeFileSync(
      join(consumer, "skill-central.yaml"),
      `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "http://127.0.0.1:${host.port}/.well-known/agent-skills/", signers: keys }\n`,
    );
    const sync = await run(["sync"], consumer);
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    const lock = JSON.parse(readFileSync(join(consumer, "skill-central.lock"), "utf8")).layers.vendor;
    expect(lock.signer).toEqual({ principal: "alice@example.com", fingerprint: alice.fingerprint });
    // The publication time publish --sign put inside the signed index, locked for the rollback check.
    expect(lock.published).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(sync.stdout).toContain(`signed by alice@example.com (${alice.fingerprint})`);
  });
});
