/**
 * `log`: the admin log (docs/governance.md), every approve, block and unblock in the store the
 * config names, each entry's SSH signature verified as it is read against the approvers'
 * allowed_signers file (`policy.approvers`, or `--signers`) and against the hash chain, so an
 * entry edited, forged or deleted behind the store's back is shown as such. It only reads: no
 * command edits or deletes an entry. Exits 1 when an entry it shows does not verify.
 */
import { type CheckedEntry, checkLog } from "../storage/admin-log-record.ts";
import { readAdminLog } from "../storage/admin-log-store.ts";
import { readApprovers } from "../storage/approvers-file.ts";
import { shownStore, storeLocation } from "../storage/store-location.ts";
import { visibleLine } from "../visible-text.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad, UsageError } from "./support/command.ts";
import { text, value } from "./support/options.ts";

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `7d`, `12h`, `2w` (a window back from now) or a date (`2026-12-01`, ISO time) → ms since the epoch. */
export function parseSince(raw: string, now = Date.now()): number {
  const window = /^\s*(\d+)\s*([hdw])\s*$/.exec(raw);
  if (window) return now - Number(window[1]) * UNIT_MS[window[2]!]!;
  const at = /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? Date.parse(raw.trim()) : Number.NaN;
  if (Number.isNaN(at))
    throw new UsageError(`--since must be a window (7d, 12h, 2w) or a date (2026-12-01), not "${raw}"`);
  return at;
}

export const spec = command({
  name: "log",
  summary: "The admin log: every approve, block and unblock, each signature verified as it is read",
  usage: "log [--since 7d|DATE] [--skill <id>] [--signers FILE] [--json]",
  description:
    "Lists the admin log kept in the store (`store:`, else the user's state file; docs/governance.md):\n" +
    "time, who (the principal of the allowed_signers line of the key), the key's fingerprint, the\n" +
    "action, the skill and digest, and the reason. Each entry's SSHSIG signature is verified against\n" +
    "`policy.approvers` (or --signers), and the chain of hashes that links each entry to the one\n" +
    "before it is checked, so an entry edited or deleted in the database shows as NOT VERIFIED.\n" +
    "Exits 1 when an entry shown does not verify.",
  options: {
    since: value("<window|date>", "Only entries from then on (7d, 12h, 2w, or 2026-12-01)", (raw) => parseSince(raw)),
    skill: text("<id>", "Only this skill's entries"),
    signers: text("<file>", "Verify against this allowed_signers file instead of policy.approvers"),
  },
  examples: ["skill-central log", "skill-central log --since 7d --skill review-pr", "skill-central log --json"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const setting = loaded.config.stateStore;
    if (setting === undefined) {
      ctx.err("no store: nothing to show\n");
      return EXIT_OK;
    }
    const location = storeLocation(setting.store, setting.passwordEnv);
    let entries: Awaited<ReturnType<typeof readAdminLog>>;
    try {
      entries = await readAdminLog(location);
    } catch (error) {
      ctx.err(
        `the admin log in ${shownStore(location)} cannot be read: ${visibleLine(String((error as Error).message ?? error))}\n`,
      );
      return EXIT_FAILURE;
    }
    const signersFile = ctx.options.signers ?? loaded.config.approvers;
    const approvers = await readApprovers(signersFile, ctx.cwd);
    const checked: CheckedEntry[] =
      "problem" in approvers
        ? entries.map((e) => ({ ...e, verified: false, signed: false, problem: approvers.problem }))
        : checkLog(entries, approvers);
    const shown = checked.filter(
      (e) =>
        (ctx.options.since === undefined || e.at >= ctx.options.since) &&
        (ctx.options.skill === undefined || e.skill === ctx.options.skill),
    );
    const failing = shown.filter((e) => !e.verified).length;
    if (ctx.json) {
      json(ctx, {
        store: shownStore(location),
        newest: entries.at(-1)?.seq ?? 0,
        entries: shown.map((e) => ({
          seq: e.seq,
          at: new Date(e.at).toISOString(),
          principal: e.principal,
          fingerprint: e.fingerprint,
          action: e.action,
          skill: e.skill,
          ...(e.digest !== undefined && { digest: e.digest }),
          reason: e.reason,
          verified: e.verified,
          ...(e.problem !== undefined && { problem: e.problem }),
        })),
      });
    } else {
      if (shown.length === 0)
        ctx.err(`no admin log entries${entries.length > 0 ? " match" : ""} in ${shownStore(location)}\n`);
      for (const e of shown) ctx.out(entryText(e, ctx.colours));
      if (entries.length > 0)
        ctx.err(
          `${entries.length} entries in ${shownStore(location)}, newest #${entries.at(-1)!.seq}${failing > 0 ? `; ${failing} shown NOT VERIFIED` : ""}\n`,
        );
    }
    return failing > 0 ? EXIT_FAILURE : EXIT_OK;
  },
});

/** One entry in two lines: what and who, then the reason and the verdict. */
function entryText(
  e: CheckedEntry,
  colours: { red(s: string): string; green(s: string): string; bold(s: string): string },
): string {
  const when = new Date(e.at).toISOString().replace(/\.\d{3}Z$/, "Z");
  const target = visibleLine(e.digest === undefined ? e.skill : `${e.skill}@${e.digest}`);
  const verdict = e.verified ? colours.green("verified") : colours.red(`NOT VERIFIED: ${visibleLine(e.problem ?? "")}`);
  return (
    `#${e.seq} ${when} ${colours.bold(e.action)} ${target} by ${visibleLine(e.principal)} (${e.fingerprint}) ${verdict}\n` +
    `    reason: ${visibleLine(e.reason)}\n`
  );
}
