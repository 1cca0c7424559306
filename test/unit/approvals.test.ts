import { describe, expect, test } from "bun:test";
import { approvalFor, filesChanged } from "../../src/load/approval-holds.ts";
import { approvalsInForce } from "../../src/storage/admin-blocks.ts";
import type { CheckedEntry } from "../../src/storage/admin-log-record.ts";

/**
 * Issue 50 item 2: which approval lets a skill be served at a digest. Entries here are as the
 * admin log's check leaves them (test/unit/admin-log.test.ts signs and verifies real ones).
 */

const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;
const entry = (over: Partial<CheckedEntry>): CheckedEntry => ({
  seq: 1,
  at: Date.UTC(2026, 11, 1),
  principal: "alice@acme.dev",
  fingerprint: "SHA256:alice",
  action: "approve",
  skill: "deploy",
  digest: D1,
  reason: "read it",
  prev: "sha256:0",
  signature: "",
  verified: true,
  signed: true,
  ...over,
});
const signedBy = (fingerprint: string) => ({
  layer: {
    name: "team",
    priority: 50,
    order: 0,
    provenance: {
      url: "https://github.com/acme/skills",
      path: "",
      signer: { principal: "alice@acme.dev", fingerprint },
    },
  },
});
const unsigned = { layer: { name: "team", priority: 50, order: 0 } };

describe("approvals tied to digests", () => {
  test("an approval counts only for the digest it names: replayed onto another version it is refused, naming the approved one", () => {
    expect(approvalFor(unsigned, D1, [entry({})], false)).toMatchObject({ principal: "alice@acme.dev", digest: D1 });
    expect(approvalFor(unsigned, D2, [entry({})], false)).toEqual({
      refused: `awaiting approval: this version is ${D2}; the approved one was ${D1} (by alice@acme.dev)`,
    });
  });

  test("an entry whose signature does not verify by a listed key approves nothing", () => {
    const approvals = approvalsInForce([entry({ signed: false, verified: false, principal: "mallory" })]);
    expect(approvals.size).toBe(0);
    expect(approvalFor(unsigned, D1, approvals.get("deploy") ?? [], false)).toEqual({
      refused: `awaiting approval: no approval of ${D1} yet`,
    });
  });

  test("twoPerson: an approval by the key that signed the commit does not count; another approver's does", () => {
    const self = entry({ fingerprint: "SHA256:alice" });
    expect(approvalFor(signedBy("SHA256:alice"), D1, [self], true)).toEqual({
      refused:
        "awaiting approval: approved only by alice@acme.dev, who signed the content (alice@acme.dev); policy.twoPerson needs another approver",
    });
    // Without twoPerson, self-approval counts.
    expect(approvalFor(signedBy("SHA256:alice"), D1, [self], false)).toBe(self);
    const other = entry({ seq: 2, principal: "bob@acme.dev", fingerprint: "SHA256:bob" });
    expect(approvalFor(signedBy("SHA256:alice"), D1, [self, other], true)).toBe(other);
  });

  test("a version awaiting approval says which files changed, were added or removed since the approved one", () => {
    const approved = entry({
      files: [
        ["SKILL.md", "a"],
        ["scripts/run.sh", "b"],
        ["notes.md", "c"],
      ],
    });
    const now = [
      { path: "SKILL.md", sha256: "a" },
      { path: "scripts/run.sh", sha256: "B" },
      { path: "scripts/new.py", sha256: "d" },
    ];
    expect(filesChanged(approved.files!, now)).toBe("changed scripts/run.sh; added scripts/new.py; removed notes.md");
    expect(approvalFor(unsigned, D2, [approved], false, now)).toEqual({
      refused: `awaiting approval: this version is ${D2}; the approved one was ${D1} (by alice@acme.dev); since then: changed scripts/run.sh; added scripts/new.py; removed notes.md`,
    });
  });
});
