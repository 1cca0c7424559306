/**
 * VS Code: the user profile's `mcp.json` (Code/User in the settings folder; "MCP: Open User
 * Configuration") or the project's `.vscode/mcp.json`: JSON with comments, servers under
 * `servers` beside `inputs`. User-level servers start in the home folder (microsoft/vscode#250078),
 * so the entry passes `--cwd ${workspaceFolder}`, which VS Code fills in with the open folder.
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { appDataDir } from "../host.ts";
import { bearer, detectBy, editorStyle, reachCommon, type ClientSpec } from "./client.ts";

export const vscode: ClientSpec = {
  id: "vscode",
  name: "VS Code",
  format: "jsonc",
  detect: (host) => detectBy(host, [join(appDataDir(host), "Code")], ["code"]),
  file: ({ host, project, scope }) =>
    scope === "user" ? join(appDataDir(host), "Code", "User", "mcp.json") : join(project, ".vscode", "mcp.json"),
  entryPath: () => ["servers", SERVER_KEY],
  cwdOption: () => "${workspaceFolder}",
  shape: (entry) =>
    entry.transport === "stdio"
      ? { type: "stdio", command: entry.command, args: entry.args }
      : { type: "http", url: entry.url, ...bearer(entry, (name) => `\${env:${name}}`) },
  reach: (value, ctx) =>
    reachCommon(value, {
      expand: editorStyle(ctx),
      urlKeys: ["url"],
      startsIn: ctx.host.home,
      env: ctx.host.env,
      cwdKey: "cwd",
    }),
};
