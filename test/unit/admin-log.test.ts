import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_NAMESPACE, canonicalRecord, checkLog, type AdminDraft } from "../../src/storage/admin-log-record.ts";
import { AdminLogProbe, appendAdminEntry, readAdminLog } from "../../src/storage/admin-log-store.ts";
import { blocksInForce } from "../../src/storage/admin-blocks.ts";
import { parseAllowedSigners } from "../../src/storage/allowed-signers.ts";
import { parsePrivateKey } from "../../src/storage/sshsig.ts";
import { storeLocation } from "../../src/storage/store-location.ts";
import { describePostgres, type Postgres, startPostgres } from "../helpers/postgres.ts";
import { hasSshKeygen, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";

/**
 * Issue 50 item 4: the admin log in the store (schema version 3), append-only and verifiable.
 * Keys made by ssh-keygen (ed25519, ECDSA, RSA); entries signed in process and verified as
 * `ssh-keygen -Y verify` verifies them; a row edited or deleted in the database is found.
 */

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "sc-admin-log-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const T = Date.UTC(2026, 11, 1, 9);
const draft = (over: Partial<AdminDraft> = {}): AdminDraft => ({
  at: T,
  principal: "alice@acme.dev",
  action: "block",
  skill: "deploy",
  reason: "leaks the token",
  ...over,
});

interface Keys {
  dir: string;
  alice: TestKey;
  bob: TestKey;
  carol: TestKey;
  mallory: TestKey;
  /** alice (ed25519), bob (ECDSA), carol (RSA); mallory is not listed. */
  signers: ReturnType<typeof parseAllowedSigners>;
}

function makeKeys(): Keys {
  const dir = tempDir();
  const alice = makeKey(dir, "alice", "ed25519");
  const bob = makeKey(dir, "bob", hasSshKeygen ? "ecdsa256" : "ed25519");
  const carol = makeKey(dir, "carol", hasSshKeygen ? "rsa" : "ed25519");
  const mallory = makeKey(dir, "mallory", "ed25519");
  const text = `${signerLine("alice@acme.dev", alice)}${signerLine("bob@acme.dev", bob)}${signerLine("carol@acme.dev", carol, `namespaces="${ADMIN_NAMESPACE}"`)}`;
  writeFileSync(join(dir, "approvers"), text);
  return { dir, alice, bob, carol, mallory, signers: parseAllowedSigners(text) };
}

const privateKey = (key: TestKey) => parsePrivateKey(readFileSync(key.file, "utf8"));

describe("admin log in a SQLite store", () => {
  let keys: Keys;
  beforeAll(() => {
    keys = makeKeys();
  });

  test("entries signed by ed25519, ECDSA and RSA keys of the approvers file are stored in order, chained, and verify", async () => {
    const location = storeLocation(join(tempDir(), "state.db"));
    await appendAdminEntry(location, draft(), privateKey(keys.alice));
    await appendAdminEntry(
      location,
      draft({ principal: "bob@acme.dev", action: "approve", digest: "sha256:ab", reason: "reviewed" }),
      privateKey(keys.bob),
    );
    await appendAdminEntry(
      location,
      draft({ principal: "carol@acme.dev", action: "unblock", reason: "fixed" }),
      privateKey(keys.carol),
    );
    const entries = await readAdminLog(location);
    expect(entries.map((e) => [e.seq, e.action, e.principal, e.digest])).toEqual([
      [1, "block", "alice@acme.dev", undefined],
      [2, "approve", "bob@acme.dev", "sha256:ab"],
      [3, "unblock", "carol@acme.dev", undefined],
    ]);
    expect(entries.map((e) => e.fingerprint)).toEqual([keys.alice, keys.bob, keys.carol].map((k) => k.fingerprint));
    expect(checkLog(entries, keys.signers).map((e) => [e.verified, e.problem])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ]);
  });

  test.skipIf(!hasSshKeygen)(
    "an entry's signature is one `ssh-keygen -Y verify` accepts in the admin namespace",
    async () => {
      const location = storeLocation(join(tempDir(), "state.db"));
      const entry = await appendAdminEntry(location, draft(), privateKey(keys.alice));
      const { signature, ...unsigned } = entry;
      const sigFile = join(tempDir(), "entry.sig");
      writeFileSync(sigFile, signature);
      const args = ["-Y", "verify", "-f", join(keys.dir, "approvers"), "-I", "alice@acme.dev", "-s", sigFile];
      const good = sshKeygen([...args, "-n", ADMIN_NAMESPACE], canonicalRecord(unsigned));
      expect(good.stdout + good.stderr).toContain("Good");
      expect(good.code).toBe(0);
      expect(sshKeygen([...args, "-n", "git"], canonicalRecord(unsigned)).code).not.toBe(0);
    },
  );

  test("an entry by a key the approvers file does not list is shown as not verified", async () => {
    const location = storeLocation(join(tempDir(), "state.db"));
    await appendAdminEntry(location, draft({ principal: "mallory" }), privateKey(keys.mallory));
    const [checked] = checkLog(await readAdminLog(location), keys.signers);
    expect(checked?.verified).toBe(false);
    expect(checked?.problem).toContain("a key the signers file does not list");
  });

  test("an entry naming a principal other than its key's line is not verified", async () => {
    const location = storeLocation(join(tempDir(), "state.db"));
    await appendAdminEntry(location, draft({ principal: "carol@acme.dev" }), privateKey(keys.alice));
    const [checked] = checkLog(await readAdminLog(location), keys.signers);
    expect(checked?.verified).toBe(false);
    expect(checked?.problem).toContain("listed for alice@acme.dev, not for carol@acme.dev");
  });

  test("the store refuses UPDATE and DELETE of an entry (triggers)", async () => {
    const path = join(tempDir(), "state.db");
    await appendAdminEntry(storeLocation(path), draft(), privateKey(keys.alice));
    const db = new Database(path);
    try {
      expect(() => db.run("UPDATE admin_log SET reason = 'nothing'")).toThrow("append-only");
      expect(() => db.run("DELETE FROM admin_log")).toThrow("append-only");
    } finally {
      db.close();
    }
    expect((await readAdminLog(storeLocation(path)))[0]?.reason).toBe("leaks the token");
  });

  test("a row edited behind the triggers' back does not verify, and a deleted row breaks the next one's chain", async () => {
    const path = join(tempDir(), "state.db");
    const location = storeLocation(path);
    for (const reason of ["one", "two", "three", "four"])
      await appendAdminEntry(location, draft({ reason }), privateKey(keys.alice));
    const db = new Database(path);
    try {
      db.run("DROP TRIGGER admin_log_no_update");
      db.run("DROP TRIGGER admin_log_no_delete");
      db.run("UPDATE admin_log SET reason = 'nothing to see' WHERE seq = 2");
      db.run("DELETE FROM admin_log WHERE seq = 3");
    } finally {
      db.close();
    }
    const checked = checkLog(await readAdminLog(location), keys.signers);
    expect(checked.map((e) => [e.seq, e.verified])).toEqual([
      [1, true],
      [2, false],
      [4, false],
    ]);
    expect(checked[1]?.problem).toContain("does not match the entry");
    expect(checked[2]?.problem).toContain("hash chain breaks here");
  });

  test("blocks in force: the latest signed block or unblock per skill; an entry by an unlisted key is not obeyed; a broken chain does not void later blocks", async () => {
    const path = join(tempDir(), "state.db");
    const location = storeLocation(path);
    const probe = new AdminLogProbe(location);
    expect(await probe.newest()).toBe(0);
    await appendAdminEntry(location, draft({ skill: "a" }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "b" }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "a", action: "unblock" }), privateKey(keys.alice));
    await appendAdminEntry(
      location,
      draft({ skill: "b", action: "unblock", principal: "mallory" }),
      privateKey(keys.mallory),
    );
    await appendAdminEntry(location, draft({ skill: "c" }), privateKey(keys.alice));
    expect(await probe.newest()).toBe(5);
    const db = new Database(path);
    db.run("DROP TRIGGER admin_log_no_delete");
    db.run("DELETE FROM admin_log WHERE seq = 1");
    db.close();
    const checked = checkLog(await readAdminLog(location), keys.signers);
    expect(checked.find((e) => e.seq === 2)?.verified).toBe(false);
    expect([...blocksInForce(checked).keys()].sort()).toEqual(["b", "c"]);
    await probe.close();
  });

  test("a block of one digest is its own block: an unblock lifts exactly the block it names (the skill's, or that digest's)", async () => {
    const location = storeLocation(join(tempDir(), "digest-blocks.db"));
    const d1 = `sha256:${"1".repeat(64)}`;
    const d2 = `sha256:${"2".repeat(64)}`;
    await appendAdminEntry(location, draft({ skill: "a", digest: d1 }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "a", digest: d2 }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "a" }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "a", action: "unblock" }), privateKey(keys.alice));
    await appendAdminEntry(location, draft({ skill: "a", action: "unblock", digest: d2 }), privateKey(keys.alice));
    const checked = checkLog(await readAdminLog(location), keys.signers);
    expect(checked.every((e) => e.verified)).toBe(true);
    const blocks = blocksInForce(checked);
    expect([...blocks.keys()]).toEqual([`a@${d1}`]);
    expect(blocks.get(`a@${d1}`)?.digest).toBe(d1);
  });

  test("reading a store file that does not exist finds no entry and creates nothing", async () => {
    const path = join(tempDir(), "absent.db");
    expect(await readAdminLog(storeLocation(path))).toEqual([]);
    expect(() => readFileSync(path)).toThrow();
  });
});

describePostgres("admin log in a PostgreSQL store", () => {
  let pg: Postgres;
  let keys: Keys;
  beforeAll(() => {
    pg = startPostgres();
    keys = makeKeys();
  }, 60_000);
  afterAll(() => pg?.destroy());

  test("entries append in order across writers, verify, and the database refuses UPDATE, DELETE and TRUNCATE", async () => {
    pg.psql("CREATE DATABASE gov");
    const location = storeLocation(pg.url.replace(/\/postgres$/, "/gov"));
    await Promise.all([
      appendAdminEntry(location, draft({ reason: "a" }), privateKey(keys.alice), pg.env),
      appendAdminEntry(location, draft({ principal: "bob@acme.dev", reason: "b" }), privateKey(keys.bob), pg.env),
      appendAdminEntry(location, draft({ principal: "carol@acme.dev", reason: "c" }), privateKey(keys.carol), pg.env),
    ]);
    const entries = await readAdminLog(location, pg.env);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(checkLog(entries, keys.signers).every((e) => e.verified)).toBe(true);
    for (const sql of ["UPDATE admin_log SET reason = 'x'", "DELETE FROM admin_log", "TRUNCATE admin_log"])
      expect(() => pg.psql(sql, "gov")).toThrow();
    expect((await readAdminLog(location, pg.env)).length).toBe(3);
  });
});
