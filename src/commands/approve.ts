/**
 * `approve ID@DIGEST`: a signed approval of one exact version of a skill (docs/governance.md).
 * DIGEST is the one `audit --format json` reports and `audit.allow` pins; with `policy.approval`
 * a skill that needs one is served only at an approved digest, by every server reading the same
 * store, within a few seconds of the approval.
 */
import { sharedAuditCache } from "../audit/cache.ts";
import { auditRecords } from "../load/audit-records.ts";
import { visibleLine } from "../visible-text.ts";
import { recordOrRefuse } from "./support/admin-action.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad, UsageError } from "./support/command.ts";
import { text } from "./support/options.ts";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export const spec = command({
  name: "approve",
  summary: "Approve one exact version of a skill (its digest): a signed admin log entry with a reason",
  usage: "approve <id>@<digest> --reason <text> --key <keyfile>",
  description:
    "Appends a signed approval of the skill at that digest (as `audit --format json` reports it) to\n" +
    "the admin log in the store (docs/governance.md). The key must be listed in policy.approvers; the\n" +
    "reason is required. With policy.approval, every server reading the same store serves the skill\n" +
    "at that digest, and only at an approved one.",
  options: {
    reason: text("<text>", "Why (required; kept in the admin log)"),
    key: text("<keyfile>", "The SSH private key that signs it: an approver's (policy.approvers)"),
  },
  examples: [
    "skill-central approve review-pr@sha256:9f2c… --reason 'read it, no network calls' --key ~/.ssh/id_ed25519",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const raw = ctx.args[0]!;
    const at = raw.lastIndexOf("@");
    const skill = at > 0 ? raw.slice(0, at) : "";
    const digest = at > 0 ? raw.slice(at + 1) : "";
    if (skill === "" || !DIGEST.test(digest))
      throw new UsageError(
        `approve takes ID@DIGEST, the digest as audit --format json reports it (sha256: and 64 hex digits), not "${raw}"`,
      );
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    // The files of that version, where this project has it: kept in the approval so a later version can say what changed.
    const records = loaded.records.filter((r) => r.skill?.id === skill);
    const here = auditRecords({ config: loaded.config, records }, sharedAuditCache(), true, {
      digests: loaded.digests,
    }).find((a) => a.digest === digest);
    const files = here?.files.map((f) => [f.path, f.sha256] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const recorded = await recordOrRefuse(ctx, loaded, ctx.cwd, {
      action: "approve",
      skill,
      digest,
      ...(files !== undefined && { files }),
      reason: ctx.options.reason,
      keyFile: ctx.options.key,
    });
    if (recorded === undefined) return EXIT_FAILURE;
    const { entry, store } = recorded;
    if (ctx.json) json(ctx, { seq: entry.seq, action: "approve", skill, digest, principal: entry.principal, store });
    else
      ctx.out(
        `approved ${visibleLine(skill)}@${digest} (#${entry.seq} in ${store}, by ${visibleLine(entry.principal)}, ${entry.fingerprint})\n`,
      );
    return EXIT_OK;
  },
});
