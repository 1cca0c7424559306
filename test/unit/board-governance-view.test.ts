import { describe, expect, test } from "bun:test";
import { governanceView } from "../../src/board/governance-view.ts";
import type { GovernanceHolds } from "../../src/load/governance-holds.ts";
import type { CheckedEntry } from "../../src/storage/admin-log-record.ts";

const AT = Date.UTC(2026, 11, 6, 5, 30);
const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;

function entry(seq: number, fields: Partial<CheckedEntry>): CheckedEntry {
  return {
    seq,
    at: AT + seq * 1000,
    principal: "alice@acme.dev",
    fingerprint: "SHA256:abc",
    action: "approve",
    skill: "deploy",
    reason: "reviewed",
    prev: "sha256:0",
    signature: "-----BEGIN SSH SIGNATURE-----",
    verified: true,
    signed: true,
    ...fields,
  };
}

describe("the board's governance wire field (board/governance-view.ts)", () => {
  test("no governance on the load (no policy.approvers): { on: false }", () => {
    expect(governanceView({})).toEqual({ on: false });
  });

  test("blocks by id with who, when, reason and digest; awaiting with the files changed; the log newest first, an unverified entry marked with its problem", () => {
    const approve = entry(1, { digest: D1, files: [["SKILL.md", "aa"]] });
    const blockAll = entry(2, { action: "block", skill: "zeta", reason: "leaks tokens", principal: "bob@acme.dev" });
    const blockOne = entry(3, { action: "block", skill: "alpha", digest: D2, reason: "bad version" });
    const tampered = entry(4, {
      action: "unblock",
      skill: "old",
      reason: "edited",
      verified: false,
      problem: "the signature does not verify",
    });
    const holds: GovernanceHolds = {
      blocked: new Map([
        ["zeta", blockAll],
        ["alpha", blockOne],
      ]),
      approvals: new Map([["deploy", [approve]]]),
      awaiting: [
        {
          id: "deploy",
          layer: "team",
          digest: D2,
          why: `awaiting approval: this version is ${D2}; the approved one was ${D1} (by alice@acme.dev); since then: changed SKILL.md`,
        },
      ],
      newest: 4,
      recent: [approve, blockAll, blockOne, tampered],
    };
    const view = governanceView({ governance: holds });
    expect(view).toEqual({
      on: true,
      blocked: [
        {
          id: "alpha",
          principal: "alice@acme.dev",
          at: new Date(AT + 3000).toISOString(),
          reason: "bad version",
          digest: D2,
        },
        { id: "zeta", principal: "bob@acme.dev", at: new Date(AT + 2000).toISOString(), reason: "leaks tokens" },
      ],
      awaiting: [holds.awaiting![0]!],
      log: [
        {
          at: new Date(AT + 4000).toISOString(),
          principal: "alice@acme.dev",
          action: "unblock",
          skill: "old",
          reason: "edited",
          verified: false,
          problem: "the signature does not verify",
        },
        {
          at: new Date(AT + 3000).toISOString(),
          principal: "alice@acme.dev",
          action: "block",
          skill: "alpha",
          digest: D2,
          reason: "bad version",
          verified: true,
        },
        {
          at: new Date(AT + 2000).toISOString(),
          principal: "bob@acme.dev",
          action: "block",
          skill: "zeta",
          reason: "leaks tokens",
          verified: true,
        },
        {
          at: new Date(AT + 1000).toISOString(),
          principal: "alice@acme.dev",
          action: "approve",
          skill: "deploy",
          digest: D1,
          reason: "reviewed",
          verified: true,
        },
      ],
    });
    // Nothing secret or bulky crosses the wire: no signature, no fingerprint chain, no file list.
    const text = JSON.stringify(view);
    expect(text).not.toContain("BEGIN SSH SIGNATURE");
    expect(text).not.toContain('"files"');
  });

  test("governance on with nothing held: empty lists, so the page says so in words", () => {
    expect(governanceView({ governance: { blocked: new Map(), approvals: new Map(), newest: 0, recent: [] } })).toEqual(
      {
        on: true,
        blocked: [],
        awaiting: [],
        log: [],
      },
    );
  });
});
