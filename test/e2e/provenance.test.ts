import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { gitSync, makeRemote, skill, type Remote } from "../helpers/git-remote.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { chromiumInstalled, launchChromium, startBoard } from "../helpers/board.ts";
import { SOURCE_ENTRY, SOURCE_TARGET } from "../helpers/server.ts";
import { hasSshKeygen, makeKey, signerLine, type TestKey } from "../helpers/ssh-keys.ts";
import { runCli } from "./cli-run.ts";

/**
 * Who published a git layer's skills (docs/provenance.md), end to end with real git and real
 * ssh-keygen (git signs with it; without it, test/helpers/ssh-keys.ts signs as git does): a layer with `signers` syncs only commits signed by a listed
 * key, each refusal says why, the verified copy keeps serving, and the lock, `show`, `doctor`
 * and `skills/list` name the signer.
 */

let fixture: Fixture;
let remote: Remote;
let alice: TestKey;
let mallory: TestKey;

beforeEach(() => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
  const keys = join(fixture.root, "keys");
  mkdirSync(keys, { recursive: true });
  alice = makeKey(keys, "alice");
  mallory = makeKey(keys, "mallory");
});
afterEach(() => fixture.cleanup());

const env = (home: string): Record<string, string> => ({ HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1" });

function project(signersLines: string): void {
  fixture.write("team.allowed_signers", signersLines);
  fixture.write(
    "skill-central.yaml",
    `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills, signers: team.allowed_signers }\n`,
  );
}

/** Runs `sync` (or `args`), which must fail; its output. */
async function refusedSync(args = ["sync"]): Promise<string> {
  const run = await runCli(args, fixture.cwd, fixture.home);
  expect(run.code).toBe(1);
  return run.stdout + run.stderr;
}

const lock = () => JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).layers.team;

async function served(): Promise<{ text: string; meta: Record<string, unknown> }> {
  const client = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
  try {
    const got = await client.call<{ messages: { content: { text: string } }[] }>("prompts/get", {
      name: "review",
      arguments: {},
    });
    const list = await client.call<{ skills: { _meta: Record<string, Record<string, unknown>> }[] }>("skills/list", {});
    return { text: got.messages[0]!.content.text, meta: list.skills[0]!._meta["dev.skill-central/provenance"]! };
  } finally {
    await client.close();
  }
}

describe("git layers with signers", () => {
  test("a commit signed by a listed key syncs; the lock, skills/list, show and doctor name the signer", async () => {
    project(signerLine("alice@example.com", alice));
    const commit = remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });

    const sync = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    expect(lock().signer).toEqual({ principal: "alice@example.com", fingerprint: alice.fingerprint });
    expect(lock().commit).toBe(commit);

    const { text, meta } = await served();
    expect(text).toBe("Review v1");
    expect(meta).toMatchObject({
      layer: "team",
      url: remote.url,
      commit,
      signer: { principal: "alice@example.com", fingerprint: alice.fingerprint },
    });

    const show = await runCli(["show", "review"], fixture.cwd, fixture.home);
    expect(show.stdout).toContain(`  signed by      alice@example.com (${alice.fingerprint})\n`);
    const showJson = JSON.parse((await runCli(["show", "review", "--json"], fixture.cwd, fixture.home)).stdout);
    expect(showJson.signer).toEqual({ principal: "alice@example.com", fingerprint: alice.fingerprint });
    const doctor = await runCli(["doctor"], fixture.cwd, fixture.home);
    expect(doctor.stdout).toContain(`signed by alice@example.com (${alice.fingerprint})`);
    expect(doctor.stdout).not.toContain("has no signers");

    // The board's skill page: its data, and the page itself in a real browser.
    const board = await startBoard(
      { name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] },
      fixture.cwd,
      fixture.home,
    );
    try {
      const page = await fetch(new URL("api/skill/review", board.base), {
        headers: board.authorized({ Origin: new URL(board.base).origin }),
      });
      expect(((await page.json()) as { origin: unknown }).origin).toEqual({
        url: remote.url,
        commit,
        signer: { principal: "alice@example.com", fingerprint: alice.fingerprint },
      });
      if (chromiumInstalled) {
        const browser = await launchChromium();
        try {
          const tab = await browser.newPage();
          await tab.goto(board.url);
          await tab.getByRole("list", { name: "Skills" }).getByRole("link", { name: "review", exact: true }).click();
          const origin = tab.getByLabel("Origin");
          await origin.waitFor();
          expect(await origin.textContent()).toBe(
            `From ${remote.url} at ${commit.slice(0, 12)} · signed by alice@example.com ${alice.fingerprint}`,
          );
        } finally {
          await browser.close();
        }
      }
    } finally {
      await board.stop();
    }
  });

  // git signs and verifies SSH signatures with ssh-keygen.
  test.skipIf(!hasSshKeygen)(
    "git's own `commit -S` in a work tree is accepted (git verify-commit agrees)",
    async () => {
      project(signerLine("alice@example.com", alice));
      const work = join(fixture.root, "work");
      gitSync(["clone", "--quiet", remote.dir, work]);
      mkdirSync(join(work, "skills"), { recursive: true });
      writeFileSync(join(work, "skills", "review.yaml"), skill("review", "From a work tree"));
      gitSync(["add", "."], { cwd: work });
      const signing = ["-c", "gpg.format=ssh", "-c", `user.signingkey=${alice.file}`];
      gitSync([...signing, "commit", "--quiet", "-S", "-m", "signed by git"], { cwd: work });
      gitSync(["push", "--quiet", "origin", "HEAD:main"], { cwd: work });
      const allowed = join(fixture.cwd, "team.allowed_signers");
      gitSync(["-c", `gpg.ssh.allowedSignersFile=${allowed}`, "verify-commit", "HEAD"], { cwd: work });

      const sync = await runCli(["sync"], fixture.cwd, fixture.home);
      expect(sync.code).toBe(0);
      expect(lock().signer.principal).toBe("alice@example.com");
      expect((await served()).text).toBe("From a work tree");
    },
  );

  test("sync --update refuses an unsigned commit, another key's and a tampered one, each saying which; the verified copy keeps serving", async () => {
    project(signerLine("alice@example.com", alice));
    const good = remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);

    const cases: [string, () => string, RegExp][] = [
      [
        "unsigned",
        () => remote.commit({ "skills/review.yaml": skill("review", "Unsigned") }),
        /commit [0-9a-f]{12} is not signed; this layer serves only commits signed by a key in team\.allowed_signers/,
      ],
      [
        "another key",
        () => remote.commit({ "skills/review.yaml": skill("review", "Mallory") }, { signWith: mallory.file }),
        new RegExp(
          `is signed by ${mallory.fingerprint.replace(/[+/]/g, "\\$&")}, a key the signers file does not list`,
        ),
      ],
      [
        "tampered",
        () => {
          // Alice's signed commit with its message changed after signing: the signature no longer matches.
          const signed = remote.commit({ "skills/review.yaml": skill("review", "Tampered") }, { signWith: alice.file });
          const raw = gitSync(["cat-file", "commit", signed], { cwd: remote.dir });
          const forged = gitSync(["hash-object", "-t", "commit", "-w", "--stdin"], {
            cwd: remote.dir,
            stdin: `${raw.replace(/commit \d+$/, "an innocent change")}\n`,
          });
          gitSync(["update-ref", "refs/heads/main", forged], { cwd: remote.dir });
          return forged;
        },
        /signature by alice@example\.com \(SHA256:[^)]+\) is invalid: it does not match the content/,
      ],
    ];
    for (const [name, make, message] of cases) {
      make();
      expect(await refusedSync(["sync", "--update"]), name).toMatch(message);
      expect(lock().commit, name).toBe(good);
      expect((await served()).text, name).toBe("Review v1");
    }
  });

  test("valid-before is honoured against the commit time, as git does", async () => {
    // The test remote's commits are dated 2024-01-01.
    project(signerLine("alice@example.com", alice, 'valid-before="20231231Z"'));
    remote.commit({ "skills/review.yaml": skill("review") }, { signWith: alice.file });
    expect(await refusedSync()).toContain("expired at 2023-12-31T00:00:00Z (valid-before)");

    project(signerLine("alice@example.com", alice, 'valid-before="20240102Z",namespaces="git"'));
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
  });

  test("a key limited to other namespaces cannot sign commits", async () => {
    project(signerLine("alice@example.com", alice, 'namespaces="agent-skills"'));
    remote.commit({ "skills/review.yaml": skill("review") }, { signWith: alice.file });
    expect(await refusedSync()).toContain('allows namespaces "agent-skills", not "git"');
  });

  test("a lock written before signers were added is not served until sync verifies it", async () => {
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills }\n`,
    );
    remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    expect(lock().signer).toBeUndefined();
    const doctor = await runCli(["doctor"], fixture.cwd, fixture.home);
    expect(doctor.stdout + doctor.stderr).toContain('git layer "team" has no signers');

    project(signerLine("alice@example.com", alice));
    const list = await runCli(["list"], fixture.cwd, fixture.home);
    expect(list.stderr).toContain("was not verified against its signers");
    expect(await refusedSync(["sync", "--check"])).toContain(
      "was not verified against its signers; run skill-central sync",
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    expect(lock().signer.principal).toBe("alice@example.com");
    expect((await served()).text).toBe("Review v1");
  });

  test("a missing signers file refuses the layer, naming the file", async () => {
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills, signers: nope }\n`,
    );
    remote.commit({ "skills/review.yaml": skill("review") }, { signWith: alice.file });
    expect(await refusedSync()).toContain("the signers file nope does not exist");
  });
});
