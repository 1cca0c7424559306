/**
 * `block` and `unblock`: the kill switch (docs/governance.md). A signed entry in the admin log,
 * by a key of `policy.approvers`, with a reason; every server reading the same store (and
 * naming the same approvers) stops serving the skill, or serves it again, within a few seconds
 * and tells its clients (list_changed). A block covers every version of the skill, in every layer;
 * with `--digest D` (the digest `audit --format json` reports) it covers that version only, and
 * `unblock --digest D` lifts exactly that block.
 */
import { visibleLine } from "../visible-text.ts";
import { recordOrRefuse } from "./support/admin-action.ts";
import { command, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, json, load, reportLoad } from "./support/command.ts";
import { text } from "./support/options.ts";

const OPTIONS = {
  digest: text("<sha256:…>", "Only the version with this digest (the one audit --format json reports)"),
  reason: text("<text>", "Why (required; kept in the admin log)"),
  key: text("<keyfile>", "The SSH private key that signs it: an approver's (policy.approvers)"),
};

function actionSpec(action: "block" | "unblock") {
  const blocking = action === "block";
  return command({
    name: action,
    summary: blocking
      ? "Stop serving a skill everywhere the store reaches, now: a signed admin log entry with a reason"
      : "Serve a blocked skill again: a signed admin log entry with a reason",
    usage: `${action} <id> [--digest <sha256:…>] --reason <text> --key <keyfile>`,
    description:
      `Appends a signed ${action} entry to the admin log in the store (docs/governance.md). The key must\n` +
      "be listed in policy.approvers; the reason is required. Every server reading the same store and\n" +
      `naming approvers ${blocking ? "stops serving the skill (every version, every layer)" : "serves the skill again"} within a few seconds\n` +
      "and sends list_changed. With --digest, only the version with that digest (another layer's version\n" +
      "is served in its place); an unblock lifts exactly the block it names. `skill-central log` shows the entry.",
    options: OPTIONS,
    examples: [`skill-central ${action} deploy --reason "leaks the deploy token" --key ~/.ssh/id_ed25519`],
    positionals: { min: 1, max: 1 },
    async run(ctx) {
      const loaded = await load(ctx);
      reportLoad(ctx, loaded);
      const skill = ctx.args[0]!;
      const digest = ctx.options.digest;
      if (digest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(digest)) {
        ctx.err(`error: --digest takes sha256:<64 hex digits>, the digest audit --format json reports\n`);
        return EXIT_USAGE;
      }
      const recorded = await recordOrRefuse(ctx, loaded, ctx.cwd, {
        action,
        skill,
        ...(digest !== undefined && { digest }),
        reason: ctx.options.reason,
        keyFile: ctx.options.key,
      });
      if (recorded === undefined) return EXIT_FAILURE;
      const { entry, store } = recorded;
      if (ctx.json)
        json(ctx, {
          seq: entry.seq,
          action,
          skill,
          ...(digest !== undefined && { digest }),
          principal: entry.principal,
          fingerprint: entry.fingerprint,
          store,
        });
      else
        ctx.out(
          `${blocking ? "blocked" : "unblocked"} ${visibleLine(skill)}${digest === undefined ? "" : ` at ${digest}`} (#${entry.seq} in ${store}, by ${visibleLine(entry.principal)}, ${entry.fingerprint}): every server reading this store ${blocking ? "stops serving it" : "serves it again"} within 5 s\n`,
        );
      return EXIT_OK;
    },
  });
}

export const spec = actionSpec("block");
export const unblockSpec = actionSpec("unblock");
