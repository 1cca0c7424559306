/** What install knows of a client: its id, where its files are, how it writes an entry and expands variables, and what it refuses. */
import { existsSync } from "node:fs";
import type { ConfigFormat } from "../config-document.ts";
import type { DesiredEntry, Reach, Scope } from "../entry.ts";
import { tildePath, type Host } from "../host.ts";

export const CLIENT_IDS = [
  "claude-code",
  "claude-desktop",
  "cursor",
  "windsurf",
  "vscode",
  "codex",
  "zed",
  "gemini",
  "opencode",
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** Where install is working: the machine, the project, and which of the client's files. */
export interface ClientContext {
  host: Host;
  /** Absolute project folder (`--cwd`, else the working folder). */
  project: string;
  scope: Scope;
}

/** A client cannot take an entry in this form; the text says why and what to do instead. */
export interface Refusal {
  refused: string;
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === "object" && value !== null && "refused" in value;
}

/**
 * One MCP client: where its config lives, how it spells a server entry, and how it starts one.
 * Each client's module is the one place that knows these facts (see docs/install-ides.md).
 */
export interface ClientSpec {
  id: ClientId;
  name: string;
  format: ConfigFormat;
  /** What shows the client is on this machine (its config folder or its command), or null. */
  detect(host: Host): string | null;
  /** The config file at a scope; undefined when the client has no file there. */
  file(ctx: ClientContext): string | undefined;
  /** Key path of our entry in the document (opencode's depends on which schema the file uses). */
  entryPath(data: unknown): readonly string[];
  /**
   * What the stdio entry passes as `--cwd`: the project's path for clients that start servers
   * outside the project, a variable the client fills in with the open folder, or nothing for
   * clients that start servers in the project.
   */
  cwdOption(ctx: ClientContext): string | undefined;
  /** Our entry in the client's own shape, or why the client cannot hold it. */
  shape(entry: DesiredEntry, ctx: ClientContext, data: unknown): Record<string, unknown> | Refusal;
  /** How the client would start or reach what an entry says, its variables filled in. */
  reach(value: unknown, ctx: ClientContext): Reach | Refusal;
  /** Content of a new file before our entry is added (opencode's `$schema`). */
  template?: string;
}

/** The first existing folder or file among `paths`, else the first command found on PATH. */
export function detectBy(host: Host, paths: readonly string[], commands: readonly string[]): string | null {
  for (const path of paths) if (existsSync(path)) return `${tildePath(path, host)} exists`;
  for (const command of commands) if (host.which(command)) return `${command} is on PATH`;
  return null;
}

/** Empty containers and defaults that every client treats as absent. */
const DEFAULTS: Record<string, unknown> = { type: "stdio", enabled: true, source: "custom" };

/** An entry stripped of defaults, so `{"type":"stdio","env":{}}` and `{}` compare equal. */
export function normalizeEntry(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    if (Object.hasOwn(DEFAULTS, key) && DEFAULTS[key] === v) continue;
    out[key] = v;
  }
  return out;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

export function stringMap(value: unknown): Record<string, string> | undefined {
  const object = asObject(value);
  if (!object) return value === undefined ? {} : undefined;
  return Object.values(object).every((v) => typeof v === "string") ? (object as Record<string, string>) : undefined;
}

/** Expands a client's variables in every string; a refusal when one cannot be filled in. */
export type Expand = (text: string) => string | Refusal;

function expandAll(values: readonly string[], expand: Expand): string[] | Refusal {
  const out: string[] = [];
  for (const v of values) {
    const e = expand(v);
    if (isRefusal(e)) return e;
    out.push(e);
  }
  return out;
}

function expandMap(map: Record<string, string>, expand: Expand): Record<string, string> | Refusal {
  const keys = Object.keys(map);
  const values = expandAll(Object.values(map), expand);
  return isRefusal(values) ? values : Object.fromEntries(keys.map((k, i) => [k, values[i]!]));
}

/**
 * Reach of the common `{command, args, env}` / `{<urlKey>, headers}` shape (Claude, Cursor,
 * Windsurf, VS Code, Gemini, Zed), with the client's variables expanded.
 */
export function reachCommon(
  value: unknown,
  options: { expand: Expand; urlKeys: readonly string[]; startsIn: string; env: Host["env"]; cwdKey?: string },
): Reach | Refusal {
  const entry = asObject(value);
  if (!entry) return { refused: "the entry is not an object" };
  if (typeof entry.command === "string") {
    const args = stringsOf(entry.args ?? []);
    const env = stringMap(entry.env);
    if (!args || !env) return { refused: "args must be a list of strings and env a map of strings" };
    const command = options.expand(entry.command);
    const expandedArgs = expandAll(args, options.expand);
    const expandedEnv = expandMap(env, options.expand);
    if (isRefusal(command)) return command;
    if (isRefusal(expandedArgs)) return expandedArgs;
    if (isRefusal(expandedEnv)) return expandedEnv;
    let cwd = options.startsIn;
    if (options.cwdKey && typeof entry[options.cwdKey] === "string") {
      const c = options.expand(entry[options.cwdKey] as string);
      if (isRefusal(c)) return c;
      cwd = c;
    }
    return { transport: "stdio", command, args: expandedArgs, env: { ...stringEnv(options.env), ...expandedEnv }, cwd };
  }
  const urlKey = options.urlKeys.find((k) => typeof entry[k] === "string");
  if (urlKey) {
    const url = options.expand(entry[urlKey] as string);
    const headers = stringMap(entry.headers);
    if (!headers) return { refused: "headers must be a map of strings" };
    const expanded = expandMap(headers, options.expand);
    if (isRefusal(url)) return url;
    if (isRefusal(expanded)) return expanded;
    return { transport: "http", url, headers: expanded };
  }
  return { refused: `the entry has neither a command nor ${options.urlKeys.join(" nor ")}` };
}

/** The environment as a client passes it on: the variables that are set. */
export function stringEnv(env: Host["env"]): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** `${VAR}` and `${VAR:-default}` (Claude Code), `$VAR` too when `bare` (Gemini CLI). */
export function shellStyle(env: Host["env"], bare = false): Expand {
  const pattern = bare
    ? /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g
    : /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
  return (text) =>
    text.replace(
      pattern,
      (_, name: string | undefined, fallback: string | undefined, bareName: string | undefined) =>
        env[(name ?? bareName)!] || fallback || "",
    );
}

/**
 * VS Code-style variables (VS Code, Cursor, Windsurf): `${env:NAME}`, `${userHome}`,
 * `${workspaceFolder}` (the open project), `${workspaceFolderBasename}`, `${pathSeparator}`, `${/}`.
 * `${input:…}` needs a prompt in the editor, which a check from the command line cannot answer.
 */
export function editorStyle(ctx: ClientContext): Expand {
  const { host, project } = ctx;
  const separator = host.platform === "win32" ? "\\" : "/";
  const fixed: Record<string, string> = {
    userHome: host.home,
    workspaceFolder: project,
    workspaceFolderBasename: project.split(/[\\/]/).pop() ?? "",
    pathSeparator: separator,
    "/": separator,
  };
  return (text) => {
    let refusal: Refusal | undefined;
    const out = text.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
      if (name.startsWith("env:")) return host.env[name.slice(4)] ?? "";
      if (Object.hasOwn(fixed, name)) return fixed[name]!;
      if (name.startsWith("input:"))
        refusal = { refused: `${whole} asks for input in the editor; skill-central cannot check this entry` };
      return whole;
    });
    return refusal ?? out;
  };
}

export const noExpansion: Expand = (text) => text;

/** `Authorization: Bearer <reference>` when the entry has a token variable. */
export function bearer(
  entry: Extract<DesiredEntry, { transport: "http" }>,
  reference: (name: string) => string,
): Record<string, unknown> {
  return entry.tokenEnv ? { headers: { Authorization: `Bearer ${reference(entry.tokenEnv)}` } } : {};
}
