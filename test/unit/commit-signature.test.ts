import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllowedSigners } from "../../src/storage/allowed-signers.ts";
import { splitSignedCommit, verifyCommit } from "../../src/sources/signatures.ts";
import { gitSync, makeRemote, skill } from "../helpers/git-remote.ts";
import { hasSshKeygen, makeKey, signCommitObject, signerLine } from "../helpers/ssh-keys.ts";

/**
 * Commit signatures as git makes and checks them: the payload is the commit object without its
 * `gpgsig` header, the time is the committer's. Checked against git's own signing and
 * `git verify-commit` where ssh-keygen is installed (git signs and verifies with it).
 */

const dir = mkdtempSync(join(tmpdir(), "skill-central-commit-sig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const remote = makeRemote(dir);
const alice = makeKey(dir, "alice");
const allowed = join(dir, "allowed_signers");
writeFileSync(allowed, signerLine("alice@example.com", alice));
const signers = parseAllowedSigners(signerLine("alice@example.com", alice));

describe("commit signatures", () => {
  test("an unsigned commit has no signature; its time is the committer's", () => {
    const commit = remote.commit({ "a.yaml": skill("a") });
    const raw = new TextEncoder().encode(`${gitSync(["cat-file", "commit", commit], { cwd: remote.dir })}\n`);
    const split = splitSignedCommit(raw);
    expect(split.signature).toBeUndefined();
    expect(split.time).toBe(Date.UTC(2024, 0, 1));
    expect(split.payload).toEqual(raw);
  });

  test("a signed commit verifies against the allowed signers", async () => {
    const commit = remote.commit({ "a.yaml": skill("a", "signed") }, { signWith: alice.file });
    expect(await verifyCommit(remote.dir, commit, signers, allowed)).toEqual({
      principal: "alice@example.com",
      fingerprint: alice.fingerprint,
    });
  });

  test.skipIf(!hasSshKeygen)(
    "a commit signed in process (as the test helper does without ssh-keygen) passes git verify-commit",
    () => {
      const unsigned = remote.commit({ "a.yaml": skill("a", "in process") });
      const raw = `${gitSync(["cat-file", "commit", unsigned], { cwd: remote.dir })}\n`;
      const signed = gitSync(["hash-object", "-t", "commit", "-w", "--stdin"], {
        cwd: remote.dir,
        stdin: signCommitObject(raw, alice.file),
      });
      const verified = gitSync(["-c", `gpg.ssh.allowedSignersFile=${allowed}`, "verify-commit", signed], {
        cwd: remote.dir,
      });
      expect(verified).toBe("");
    },
  );
});
