/**
 * For `doctor`: each client, whether it has a skill-central entry, and whether that entry starts
 * this install (this version) or another one.
 */
import { basename } from "node:path";
import { CLIENTS } from "./clients/index.ts";
import { isRefusal, type ClientContext, type ClientId } from "./clients/client.ts";
import { isConfigDocument, openConfig } from "./config-document.ts";
import { FileProblem, readConfigFile } from "./config-file.ts";
import type { Scope } from "./entry.ts";
import { tildePath, type Host } from "./host.ts";
import { isThisInstall, type Launch } from "./launch.ts";
import { desiredEntry, sameEntry } from "./plan.ts";
import { stringEnv } from "./clients/client.ts";
import { VERSION } from "../version.ts";

export type EntryState =
  /** No entry (or no file). */
  | "none"
  /** Exactly what `install` would write now. */
  | "current"
  /** Starts this install, with other options (another `--cwd`, say). */
  | "this-install"
  /** Starts another copy of skill-central, or something else. */
  | "other"
  /** An HTTP entry. */
  | "http"
  /** The file does not parse, or the entry cannot be read. */
  | "broken";

export interface EntryStatus {
  scope: Scope;
  file: string;
  state: EntryState;
  detail?: string;
}

export interface ClientStatus {
  id: ClientId;
  name: string;
  /** Why it counts as installed, or null when it was not found. */
  detected: string | null;
  entries: EntryStatus[];
}

export type VersionProbe = (argv: readonly string[], cwd: string, env: Record<string, string>) => Promise<string>;

/** `<command> --version`, bounded: the version another install prints, or why it did not. */
export const probeVersion: VersionProbe = async (argv, cwd, env) => {
  try {
    const proc = Bun.spawn([...argv], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const timer = setTimeout(() => proc.kill(), 3000);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    clearTimeout(timer);
    const version = out.trim().split("\n")[0] ?? "";
    return code === 0 && /^\d+\.\d+/.test(version) ? `version ${version}` : `does not run (exit ${code})`;
  } catch (error) {
    return `does not run: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : (error as Error).message}`;
  }
};

/** Command lines that are some skill-central: only those get a `--version` probe. */
function looksLikeSkillCentral(command: string, before: readonly string[]): boolean {
  const name = basename(command).replace(/\.exe$/, "");
  if (name.startsWith("skill-central")) return true;
  return before.some((a) => /(^|[\\/])skill-central(@[\w.-]+)?$/.test(a) || /[\\/]src[\\/]cli\.ts$/.test(a));
}

async function entryStatus(
  ctx: ClientContext,
  clientIndex: number,
  path: string,
  launch: Launch,
  probe: VersionProbe,
): Promise<EntryStatus> {
  const client = CLIENTS[clientIndex]!;
  const shown = tildePath(path, ctx.host);
  const base = { scope: ctx.scope, file: shown };
  let text: string;
  try {
    const file = readConfigFile(path, shown);
    if (!file.exists) return { ...base, state: "none" };
    text = file.text;
  } catch (error) {
    if (error instanceof FileProblem) return { ...base, state: "broken", detail: error.message };
    throw error;
  }
  const doc = openConfig(client.format, text);
  if (!isConfigDocument(doc)) return { ...base, state: "broken", detail: `${doc.line}:${doc.column}: ${doc.message}` };
  const entry = doc.get(client.entryPath(doc.data));
  if (entry === undefined) return { ...base, state: "none" };
  const shaped = client.shape(desiredEntry(client, ctx, launch), ctx, doc.data);
  if (!isRefusal(shaped) && sameEntry(entry, shaped))
    return { ...base, state: "current", detail: `this install (${VERSION})` };
  const reach = client.reach(entry, ctx);
  if (isRefusal(reach)) return { ...base, state: "broken", detail: reach.refused };
  if (reach.transport === "http") return { ...base, state: "http", detail: reach.url };
  if (isThisInstall(launch, reach.command, reach.args)) {
    const options = reach.args.slice(launch.prefix.length + 1).join(" ");
    return {
      ...base,
      state: "this-install",
      detail: `this install, other options: mcp${options ? ` ${options}` : ""} (run install --force to update)`,
    };
  }
  const mcpAt = reach.args.indexOf("mcp");
  const before = mcpAt < 0 ? reach.args : reach.args.slice(0, mcpAt);
  const shownCommand = [tildePath(reach.command, ctx.host), ...reach.args].join(" ");
  if (!looksLikeSkillCentral(reach.command, before))
    return { ...base, state: "other", detail: `another command: ${shownCommand}` };
  const version = await probe([reach.command, ...before, "--version"], reach.cwd, {
    ...stringEnv(ctx.host.env),
    ...reach.env,
  });
  return { ...base, state: "other", detail: `another install: ${shownCommand} (${version})` };
}

export async function clientStatuses(
  host: Host,
  project: string,
  launch: Launch,
  probe: VersionProbe = probeVersion,
): Promise<ClientStatus[]> {
  return Promise.all(
    CLIENTS.map(async (client, index) => {
      const entries: EntryStatus[] = [];
      for (const scope of ["user", "project"] as const) {
        const ctx: ClientContext = { host, project, scope };
        const path = client.file(ctx);
        if (path === undefined) continue;
        const status = await entryStatus(ctx, index, path, launch, probe);
        // A project file is only worth a line when it exists.
        if (scope === "project" && status.state === "none") continue;
        entries.push(status);
      }
      return { id: client.id, name: client.name, detected: client.detect(host), entries };
    }),
  );
}
