/**
 * A governed user for the governance suites (docs/governance.md): SSH keys made by ssh-keygen,
 * `~/approvers` listing alice and bob (bob's line limited to the admin namespace), and a user config
 * naming the store and those approvers, so each suite adds only the policy it is about.
 */
import { join } from "node:path";
import { ADMIN_NAMESPACE } from "../../src/storage/admin-log-record.ts";
import type { Fixture } from "./fixture.ts";
import { hasSshKeygen, type KeyKind, makeKey, signerLine, type TestKey } from "./ssh-keys.ts";

export interface AdminKeys {
  alice: TestKey;
  bob: TestKey;
  /** Listed nowhere. */
  mallory: TestKey;
}

/** The three keys in ~/keys: alice ed25519, bob `bobKind` (ECDSA where ssh-keygen is there), mallory ed25519. */
export function adminKeys(fixture: Fixture, bobKind: KeyKind = hasSshKeygen ? "ecdsa256" : "ed25519"): AdminKeys {
  const dir = join(fixture.home, "keys");
  fixture.write("~/keys/.keep", "");
  return {
    alice: makeKey(dir, "alice", "ed25519"),
    bob: makeKey(dir, "bob", bobKind),
    mallory: makeKey(dir, "mallory", "ed25519"),
  };
}

/**
 * `~/approvers` listing alice and bob, and the user config: the store `~/state.db` and
 * `policy.approvers`, then `policy` (lines under `policy:`, each ending in a newline). The store's path.
 */
export function governUser(fixture: Fixture, { alice, bob }: Pick<AdminKeys, "alice" | "bob">, policy = ""): string {
  fixture.write(
    "~/approvers",
    `${signerLine("alice@acme.dev", alice)}${signerLine("bob@acme.dev", bob, `namespaces="${ADMIN_NAMESPACE}"`)}`,
  );
  const store = join(fixture.home, "state.db");
  fixture.write("~/.skill-central/config.yaml", `store: ${store}\npolicy:\n  approvers: ~/approvers\n${policy}`);
  return store;
}
