/**
 * "Add to my IDE" on the board: for the client picked, the `install` command that writes the
 * server's entry into that client's project file, and the entry itself as install would write it
 * into a new one (install's own client modules shape it, so the two never disagree). Worked out
 * when the page asks, for one client: it looks up how this copy of skill-central is started.
 */
import { type ClientId, isRefusal } from "../install/clients/client.ts";
import { clientById } from "../install/clients/index.ts";
import { isConfigDocument, openConfig } from "../install/config-document.ts";
import { hostFromEnv, tildePath } from "../install/host.ts";
import { currentLaunch } from "../install/launch.ts";
import { desiredEntry } from "../install/plan.ts";
import { clientByKey } from "./clients.ts";
import type { IdeSetup } from "./wire.ts";

/** The board's client keys that install knows, by install's id (Cline and "Other" it does not configure). */
const INSTALL_IDS: Readonly<Record<string, ClientId>> = {
  "claude-code": "claude-code",
  cursor: "cursor",
  vscode: "vscode",
  windsurf: "windsurf",
  codex: "codex",
  zed: "zed",
  "gemini-cli": "gemini",
};

export function ideSetup(key: string, project: string): IdeSetup | undefined {
  const choice = clientByKey(key);
  if (!choice) return undefined;
  const id = INSTALL_IDS[key];
  if (id === undefined)
    return {
      label: choice.label,
      note: `skill-central install does not configure ${choice.label}: add a stdio server that runs "skill-central mcp" in its MCP settings (docs/install-ides.md).`,
    };
  const client = clientById(id);
  const host = hostFromEnv();
  const scope = client.file({ host, project, scope: "project" }) === undefined ? "user" : "project";
  const ctx = { host, project, scope } as const;
  const command = `skill-central install ${id}${scope === "user" ? " --scope user" : ""}`;
  const path = client.file(ctx);
  const doc = openConfig(client.format, client.template ?? "");
  const shaped = isConfigDocument(doc)
    ? client.shape(desiredEntry(client, ctx, currentLaunch(host)), ctx, doc.data)
    : undefined;
  if (!isConfigDocument(doc) || shaped === undefined || isRefusal(shaped))
    return { label: choice.label, command, note: isRefusal(shaped) ? shaped.refused : "no entry to show" };
  return {
    label: choice.label,
    command,
    ...(path !== undefined && {
      file: tildePath(path.startsWith(`${project}/`) ? path.slice(project.length + 1) : path, host),
    }),
    snippet: doc.with(client.entryPath(doc.data), shaped),
  };
}
