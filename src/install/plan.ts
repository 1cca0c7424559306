/**
 * What install or uninstall would do to one client, worked out without writing anything: the
 * file, the action, the new text and its diff. `--dry-run` stops here.
 */
import { isRefusal, normalizeEntry, type ClientContext, type ClientSpec } from "./clients/client.ts";
import { claudeCommands } from "./clients/claude-code.ts";
import { canonical, EditRefused, isConfigDocument, openConfig, type ConfigDocument } from "./config-document.ts";
import { FileProblem, readConfigFile, type ConfigFile } from "./config-file.ts";
import type { DesiredEntry, Scope } from "./entry.ts";
import { tildePath, type Host } from "./host.ts";
import { commandLine, type Launch } from "./launch.ts";
import { unifiedDiff } from "./unified-diff.ts";

export type Action =
  /** A new file with our entry. */
  | "create"
  /** Our entry added to an existing file. */
  | "add"
  /** Our differing entry replaced (`--force`). */
  | "update"
  /** Our entry is already exactly this. */
  | "unchanged"
  /** Our entry exists and differs; replaced only with `--force`. */
  | "differs"
  /** Uninstall: our entry removed. */
  | "remove"
  /** Uninstall: there is no entry to remove. */
  | "absent"
  /** The file cannot be read or changed safely; it is left untouched. */
  | "error";

export interface Plan {
  client: ClientSpec;
  ctx: ClientContext;
  action: Action;
  /** The config file ("" when the client has none at this scope). */
  path: string;
  /** `path` for messages (`~/…`). */
  shown: string;
  /** Why, for "error"; what differs, for "differs". */
  message?: string;
  file?: ConfigFile;
  before: string;
  after: string;
  /** Unified diff of `before` → `after` ("" when the file does not change). */
  diff: string;
  /** Our entry in the client's shape (install). */
  shaped?: Record<string, unknown>;
  /** The key path of our entry in the document. */
  entryPath: readonly string[];
  /** Claude Code with its CLI: the `claude` command lines that make the change instead of a file write. */
  commands?: string[][];
  /** Something to know besides the change (an entry of ours at the client's other scope). */
  note?: string;
}

export interface PlanOptions {
  scope: Scope;
  /** Absolute project folder. */
  project: string;
  host: Host;
  force?: boolean;
}

/** The stdio command line, or the HTTP endpoint, a client's entry should hold. */
export function desiredEntry(
  client: ClientSpec,
  ctx: ClientContext,
  launch: Launch,
  http?: { url: string; tokenEnv?: string },
): DesiredEntry {
  if (http) return { transport: "http", url: http.url, ...(http.tokenEnv && { tokenEnv: http.tokenEnv }) };
  const cwd = client.cwdOption(ctx);
  return { transport: "stdio", ...commandLine(launch, cwd === undefined ? [] : ["--cwd", cwd]) };
}

/** Two entries say the same once defaults (`"type": "stdio"`, empty `env`) are set aside. */
export function sameEntry(a: unknown, b: unknown): boolean {
  return canonical(normalizeEntry(a)) === canonical(normalizeEntry(b));
}

type Opened = { plan: Plan } | { file: ConfigFile; doc: ConfigDocument; base: Plan };

/** Reads and parses the client's file; a plan with action "error" when it cannot. */
function open(client: ClientSpec, options: PlanOptions): Opened {
  const ctx: ClientContext = { host: options.host, project: options.project, scope: options.scope };
  const path = client.file(ctx);
  const base: Plan = {
    client,
    ctx,
    action: "error",
    path: path ?? "",
    shown: path ? tildePath(path, options.host) : "",
    before: "",
    after: "",
    diff: "",
    entryPath: [],
  };
  if (path === undefined) {
    const userFile = client.file({ ...ctx, scope: "user" });
    return {
      plan: {
        ...base,
        message: `${client.name} has no project config file (only ${userFile ? tildePath(userFile, options.host) : "a global one"}); use --scope user`,
      },
    };
  }
  let file: ConfigFile;
  try {
    file = readConfigFile(path, base.shown);
  } catch (error) {
    if (error instanceof FileProblem) return { plan: { ...base, message: error.message } };
    throw error;
  }
  const text = file.exists ? file.text : (client.template ?? "");
  const doc = openConfig(client.format, text);
  if (!isConfigDocument(doc)) {
    return {
      plan: {
        ...base,
        file,
        before: file.text,
        after: file.text,
        message: `${base.shown}:${doc.line}:${doc.column}: ${doc.message}; the file is left untouched (fix it, then run this again)`,
      },
    };
  }
  return {
    file,
    doc,
    base: { ...base, file, before: file.text, after: file.text, entryPath: client.entryPath(doc.data) },
  };
}

export function planInstall(
  client: ClientSpec,
  options: PlanOptions,
  launch: Launch,
  http?: { url: string; tokenEnv?: string },
): Plan {
  const opened = open(client, options);
  if ("plan" in opened) return opened.plan;
  const { file, doc, base } = opened;
  const entry = desiredEntry(client, base.ctx, launch, http);
  const shaped = client.shape(entry, base.ctx, doc.data);
  if (isRefusal(shaped)) return { ...base, message: shaped.refused };
  const existing = doc.get(base.entryPath);
  const cli = client.id === "claude-code" ? options.host.which("claude") : null;
  if (existing !== undefined && sameEntry(existing, shaped)) return { ...base, action: "unchanged", shaped };

  let after: string;
  try {
    after = doc.with(base.entryPath, shaped);
  } catch (error) {
    if (error instanceof EditRefused) return { ...base, shaped, message: `${base.shown}: ${error.message}` };
    throw error;
  }
  const action = existing === undefined ? (file.exists ? "add" : "create") : options.force ? "update" : "differs";
  const plan: Plan = { ...base, action, shaped, after, diff: unifiedDiff(file.text, after, base.shown, file.exists) };
  if (action === "differs")
    plan.message = `an entry named skill-central already exists in ${base.shown} and differs; run with --force to replace it`;
  if (cli && action !== "differs")
    plan.commands = claudeCommands(action === "update" ? "update" : "add", options.scope, entry).map((args) => [
      cli,
      ...args,
    ]);
  const note = otherScopeNote(client, options);
  if (note !== undefined) plan.note = note;
  return plan;
}

/**
 * Claude Code reads a server of one name from several scopes and then reports "Conflicting
 * scopes" (the project's entry wins over the user's): installing at one scope says so when the
 * other already has our entry.
 */
function otherScopeNote(client: ClientSpec, options: PlanOptions): string | undefined {
  if (client.id !== "claude-code") return undefined;
  const other: Scope = options.scope === "user" ? "project" : "user";
  const ctx: ClientContext = { host: options.host, project: options.project, scope: other };
  const path = client.file(ctx);
  if (path === undefined) return undefined;
  try {
    const file = readConfigFile(path);
    if (!file.exists) return undefined;
    const doc = openConfig(client.format, file.text);
    if (!isConfigDocument(doc) || doc.get(client.entryPath(doc.data)) === undefined) return undefined;
  } catch {
    return undefined;
  }
  const shown = tildePath(path, options.host);
  return `${shown} also has a skill-central entry, at ${other} scope: Claude Code will report "Conflicting scopes" and use the project's entry in this project; remove one with \`claude mcp remove --scope ${other} skill-central\` (or skill-central uninstall claude-code --scope ${other})`;
}

export function planUninstall(client: ClientSpec, options: PlanOptions): Plan {
  const opened = open(client, options);
  if ("plan" in opened) return opened.plan;
  const { file, doc, base } = opened;
  if (!file.exists || doc.get(base.entryPath) === undefined) return { ...base, action: "absent" };
  let after: string;
  try {
    after = doc.with(base.entryPath, undefined);
  } catch (error) {
    if (error instanceof EditRefused) return { ...base, message: `${base.shown}: ${error.message}` };
    throw error;
  }
  const cli = client.id === "claude-code" ? options.host.which("claude") : null;
  return {
    ...base,
    action: "remove",
    after,
    diff: unifiedDiff(file.text, after, base.shown),
    ...(cli && { commands: claudeCommands("remove", options.scope).map((args) => [cli, ...args]) }),
  };
}
