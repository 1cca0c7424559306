/**
 * Cursor: `~/.cursor/mcp.json` or the project's `.cursor/mcp.json`, `mcpServers`. Sources
 * disagree on the folder Cursor starts a stdio server in (the project, or `/`), so the entry
 * passes `--cwd ${workspaceFolder}`, which Cursor fills in with the open folder either way. It
 * expands `${env:NAME}` in headers, so the token stays out of the file.
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { bearer, detectBy, editorStyle, reachCommon, type ClientSpec } from "./client.ts";

export const cursor: ClientSpec = {
  id: "cursor",
  name: "Cursor",
  format: "jsonc",
  detect: (host) => detectBy(host, [join(host.home, ".cursor")], ["cursor"]),
  file: ({ host, project, scope }) => join(scope === "user" ? host.home : project, ".cursor", "mcp.json"),
  entryPath: () => ["mcpServers", SERVER_KEY],
  cwdOption: () => "${workspaceFolder}",
  shape: (entry) =>
    entry.transport === "stdio"
      ? { command: entry.command, args: entry.args }
      : { url: entry.url, ...bearer(entry, (name) => `\${env:${name}}`) },
  reach: (value, ctx) =>
    reachCommon(value, { expand: editorStyle(ctx), urlKeys: ["url"], startsIn: ctx.host.home, env: ctx.host.env }),
};
