/**
 * Carries out a plan: backup, write (or `claude mcp …`), read back, verify by starting the entry
 * exactly as the client would, and on any failure put the file back as it was.
 */
import { rmSync } from "node:fs";
import { isRefusal } from "./clients/client.ts";
import { isConfigDocument, openConfig } from "./config-document.ts";
import {
  backUp,
  FileProblem,
  readConfigFile,
  undo,
  writeAtomically,
  type ConfigFile,
  type Undone,
  type WriteResult,
} from "./config-file.ts";
import type { Reach } from "./entry.ts";
import { tildePath } from "./host.ts";
import { sameEntry, type Plan } from "./plan.ts";
import type { CheckResult } from "./check.ts";

export interface Outcome {
  ok: boolean;
  /** One line: what happened, or why not. */
  message: string;
  /** The backup beside the file, when one was kept. */
  backup?: string;
  check?: CheckResult;
}

export type Verify = (reach: Reach) => Promise<CheckResult>;

/** Runs `claude mcp …`; its output becomes the error message when it fails. */
export type RunCommand = (argv: readonly string[], cwd: string) => Promise<{ code: number; output: string }>;

export const runCommand: RunCommand = async (argv, cwd) => {
  const proc = Bun.spawn([...argv], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill(), 60_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, output: `${stdout}${stderr}`.trim() };
};

/** The entry as the file now holds it, started or called the way the client would. */
function reachOfFile(plan: Plan): Reach | string {
  let file: ConfigFile;
  try {
    file = readConfigFile(plan.path, plan.shown);
  } catch (error) {
    if (error instanceof FileProblem) return error.message;
    throw error;
  }
  const doc = openConfig(plan.client.format, file.text);
  if (!isConfigDocument(doc)) return `${plan.shown} no longer parses (${doc.line}:${doc.column}: ${doc.message})`;
  const entry = doc.get(plan.client.entryPath(doc.data));
  if (entry === undefined) return `${plan.shown} has no skill-central entry after the change`;
  if (plan.shaped && !sameEntry(entry, plan.shaped))
    return `${plan.shown} holds a different skill-central entry than intended`;
  const reach = plan.client.reach(entry, plan.ctx);
  return isRefusal(reach) ? reach.refused : reach;
}

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** What the client will see, as the check listed it: "listed 12 prompts, 2 tools, 3 resources". */
export function describeCheck(check: CheckResult & { ok: true }): string {
  const lists = [
    check.prompts !== undefined && counted(check.prompts, "prompt"),
    counted(check.tools, "tool"),
    check.resources !== undefined && counted(check.resources, "resource"),
  ].filter((part) => part !== false);
  return `${check.serverName} ${check.serverVersion} answered initialize and listed ${lists.join(", ")}`;
}

export async function applyInstall(plan: Plan, verify: Verify, run: RunCommand = runCommand): Promise<Outcome> {
  if (plan.action === "unchanged") {
    const reach = reachOfFile(plan);
    if (typeof reach === "string") return { ok: false, message: reach };
    const check = await verify(reach);
    return check.ok
      ? { ok: true, message: `already installed; ${describeCheck(check)}`, check }
      : { ok: false, message: `already installed, but it does not start: ${check.reason}`, check };
  }
  if (plan.action !== "create" && plan.action !== "add" && plan.action !== "update")
    return { ok: false, message: plan.message ?? "nothing to do" };
  const file = plan.file!;
  const changed = await change(plan, file, run);
  if ("ok" in changed) return changed;
  const { backup, written } = changed;
  const reach = reachOfFile(plan);
  const check = typeof reach === "string" ? ({ ok: false, reason: reach } as const) : await verify(reach);
  if (!check.ok) {
    const undone = undo(file, backup, written);
    const restored = file.exists
      ? "was restored as it was (from its backup)"
      : "was restored as it was (removed: it did not exist before)";
    return {
      ok: false,
      message: `verification failed: ${check.reason}\n  ${restoredText(plan, undone, backup, restored)}`,
      check,
      ...kept(plan, undone, backup),
    };
  }
  const how = plan.commands
    ? `added with \`claude mcp add\` to ${plan.shown}`
    : `${plan.action === "create" ? "created" : plan.action === "update" ? "updated" : "added to"} ${plan.shown}`;
  return {
    ok: true,
    message: `${how}; ${describeCheck(check)}`,
    ...(backup && { backup: tildePath(backup, plan.ctx.host) }),
    check,
  };
}

/**
 * Makes the plan's change, for install and uninstall alike: backs up the file when it exists,
 * then runs the plan's commands (Claude Code's CLI, shown as `claude …` whatever path it was
 * found at) or writes the file. A command that fails leaves the file as it was; a file that
 * cannot be backed up or written is reported and any backup removed. Returns the failure, or
 * what `undo` needs.
 */
async function change(
  plan: Plan,
  file: ConfigFile,
  run: RunCommand,
): Promise<Outcome | { backup: string | undefined; written: WriteResult }> {
  let backup: string | undefined;
  let written: WriteResult = {};
  try {
    if (file.exists) backup = backUp(file);
    if (plan.commands) {
      for (const argv of plan.commands) {
        const { code, output } = await run(argv, plan.ctx.project);
        if (code !== 0) {
          const undone = undo(file, backup, {});
          return {
            ok: false,
            message: `\`${["claude", ...argv.slice(1)].join(" ")}\` failed (exit ${code})${output ? `: ${output}` : ""}; ${restoredText(plan, undone, backup, "is as it was")}`,
            ...kept(plan, undone, backup),
          };
        }
      }
    } else {
      written = writeAtomically(file, plan.after);
    }
  } catch (error) {
    if (error instanceof FileProblem) {
      if (backup) rmBackup(backup);
      return { ok: false, message: error.message };
    }
    throw error;
  }
  return { backup, written };
}

/** "<file> <what>" when the rollback worked; otherwise why not, and where the original bytes are. */
function restoredText(plan: Plan, undone: Undone, backup: string | undefined, what: string): string {
  if (undone.restored) return `${plan.shown} ${what}`;
  return `${plan.shown} ${undone.reason}; ${backup ? `the original is kept in ${tildePath(backup, plan.ctx.host)}` : "it did not exist before"}`;
}

/** The backup, reported when a failed rollback leaves it behind. */
function kept(plan: Plan, undone: Undone, backup: string | undefined): { backup?: string } {
  return !undone.restored && backup ? { backup: tildePath(backup, plan.ctx.host) } : {};
}

function rmBackup(backup: string): void {
  rmSync(backup, { force: true });
}

export async function applyUninstall(plan: Plan, run: RunCommand = runCommand): Promise<Outcome> {
  if (plan.action !== "remove")
    return {
      ok: plan.action === "absent",
      message: plan.action === "absent" ? "no skill-central entry" : (plan.message ?? "nothing to do"),
    };
  const file = plan.file!;
  const changed = await change(plan, file, run);
  if ("ok" in changed) return changed;
  const { backup, written } = changed;
  const after = reachableText(plan);
  const doc = after === undefined ? undefined : openConfig(plan.client.format, after);
  if (!doc || !isConfigDocument(doc) || doc.get(plan.entryPath) !== undefined) {
    const undone = undo(file, backup, written);
    return {
      ok: false,
      message: `${plan.shown} still had the entry after removing it; ${undone.restored ? "restored as it was" : restoredText(plan, undone, backup, "restored")}`,
      ...kept(plan, undone, backup),
    };
  }
  return {
    ok: true,
    message: `removed from ${plan.shown}`,
    ...(backup && { backup: tildePath(backup, plan.ctx.host) }),
  };
}

/** The file's text as it is now, or undefined when it can no longer be read as UTF-8. */
function reachableText(plan: Plan): string | undefined {
  try {
    return readConfigFile(plan.path, plan.shown).text;
  } catch (error) {
    if (error instanceof FileProblem) return undefined;
    throw error;
  }
}
