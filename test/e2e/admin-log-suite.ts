import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { appendAdminEntry } from "../../src/storage/admin-log-store.ts";
import { parsePrivateKey } from "../../src/storage/sshsig.ts";
import { storeLocation } from "../../src/storage/store-location.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { adminKeys, governUser } from "../helpers/governed-user.ts";
import { type CliRun, runTarget } from "./cli-run.ts";

/**
 * Issue 50 item 4, `skill-central log`, against a target (the source entry, or the compiled
 * binary): entries written into the user's store file by real keys (ssh-keygen), listed with
 * each signature verified against `policy.approvers`; a row edited in the database, and a key
 * the approvers file does not list, shown NOT VERIFIED with exit 1.
 */
export function adminLogSuite(target: ServerTarget): void {
  describe(`skill-central log (${target.name})`, () => {
    let fixture: Fixture;
    afterEach(() => fixture?.cleanup());
    const run = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args);

    /** A user config with `store:` and `policy.approvers` listing alice (ed25519) and bob (ECDSA); mallory unlisted. */
    async function setUp() {
      fixture = makeFixture({ ".skills/deploy.yaml": "id: deploy\ndescription: Deploys\nprompt: Deploy it\n" });
      const { alice, bob, mallory } = adminKeys(fixture);
      const store = governUser(fixture, { alice, bob });
      const key = (k: typeof alice) => parsePrivateKey(readFileSync(k.file, "utf8"));
      const at = Date.UTC(2026, 11, 1, 9);
      const location = storeLocation(store);
      await appendAdminEntry(
        location,
        { at, principal: "alice@acme.dev", action: "block", skill: "deploy", reason: "leaks\u001b[2J the token" },
        key(alice),
      );
      await appendAdminEntry(
        location,
        { at: at + 1000, principal: "bob@acme.dev", action: "unblock", skill: "deploy", reason: "fixed in 1.2" },
        key(bob),
      );
      await appendAdminEntry(
        location,
        {
          at: at + 2000,
          principal: "bob@acme.dev",
          action: "approve",
          skill: "review",
          digest: "sha256:abc",
          reason: "read it",
        },
        key(bob),
      );
      return { store, alice, bob, mallory, key, location };
    }

    test("lists every entry with who, key, action, skill, digest and reason, each verified; exit 0", async () => {
      const { alice, bob } = await setUp();
      const out = await run(["log"]);
      expect(out.stderr).toContain("3 entries");
      expect(out.code).toBe(0);
      const lines = out.stdout.split("\n");
      expect(lines[0]).toContain(
        `#1 2026-12-01T09:00:00Z block deploy by alice@acme.dev (${alice.fingerprint}) verified`,
      );
      // A control character from the store is shown, never obeyed by the terminal.
      expect(out.stdout).not.toContain("\u001b");
      expect(out.stdout).toContain(
        `#3 2026-12-01T09:00:02Z approve review@sha256:abc by bob@acme.dev (${bob.fingerprint}) verified`,
      );
      const json = JSON.parse((await run(["log", "--json", "--skill", "deploy"])).stdout);
      expect(
        json.entries.map((e: { seq: number; action: string; verified: boolean }) => [e.seq, e.action, e.verified]),
      ).toEqual([
        [1, "block", true],
        [2, "unblock", true],
      ]);
      expect(json.newest).toBe(3);
      const since = JSON.parse((await run(["log", "--json", "--since", "2026-12-01T09:00:01Z"])).stdout);
      expect(since.entries.map((e: { seq: number }) => e.seq)).toEqual([2, 3]);
    });

    test("a row edited in the database and an entry by an unlisted key are shown NOT VERIFIED, exit 1", async () => {
      const { store, mallory, key, location } = await setUp();
      await appendAdminEntry(
        location,
        { at: Date.UTC(2026, 11, 2), principal: "mallory", action: "unblock", skill: "deploy", reason: "trust me" },
        key(mallory),
      );
      const db = new Database(store);
      db.run("DROP TRIGGER admin_log_no_update");
      db.run("UPDATE admin_log SET reason = 'nothing happened' WHERE seq = 1");
      db.close();
      const out = await run(["log", "--json"]);
      expect(out.code).toBe(1);
      const verdicts = JSON.parse(out.stdout).entries.map((e: { seq: number; verified: boolean; problem?: string }) => [
        e.seq,
        e.verified,
        e.problem ?? "",
      ]);
      expect(verdicts[0][1]).toBe(false);
      expect(verdicts[0][2]).toContain("does not match the entry");
      expect(verdicts[1][1]).toBe(false);
      expect(verdicts[1][2]).toContain("hash chain breaks here");
      expect(verdicts[3][1]).toBe(false);
      expect(verdicts[3][2]).toContain("does not list");
      const text = await run(["log"]);
      expect(text.code).toBe(1);
      expect(text.stdout).toContain("#1 ");
      expect(text.stdout).toContain("NOT VERIFIED: its signature does not match the entry");
      expect(text.stderr).toContain("NOT VERIFIED");
    });

    test("without policy.approvers every entry is shown unverified and says how to verify; no store file: nothing, none created", async () => {
      await setUp();
      fixture.write("~/.skill-central/config.yaml", `store: ${join(fixture.home, "state.db")}\n`);
      const out = await run(["log"]);
      expect(out.code).toBe(1);
      expect(out.stdout).toContain("NOT VERIFIED: no approvers file: set policy.approvers");
      fixture.write("~/.skill-central/config.yaml", `store: ${join(fixture.home, "none.db")}\n`);
      const none = await run(["log"]);
      expect(none.code).toBe(0);
      expect(none.stderr).toContain("no admin log entries");
      expect(() => readFileSync(join(fixture.home, "none.db"))).toThrow();
    });
  });
}
