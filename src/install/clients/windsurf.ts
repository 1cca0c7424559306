/**
 * Windsurf: one global `~/.codeium/windsurf/mcp_config.json`, `mcpServers`. Global only, so the
 * entry pins the project with `--cwd`. A remote server is `serverUrl` (a Cursor-style `url`
 * does not connect); `${env:NAME}` is expanded in headers.
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { bearer, detectBy, editorStyle, reachCommon, type ClientSpec } from "./client.ts";

export const windsurf: ClientSpec = {
  id: "windsurf",
  name: "Windsurf",
  format: "jsonc",
  detect: (host) => detectBy(host, [join(host.home, ".codeium", "windsurf")], ["windsurf"]),
  file: ({ host, scope }) =>
    scope === "user" ? join(host.home, ".codeium", "windsurf", "mcp_config.json") : undefined,
  entryPath: () => ["mcpServers", SERVER_KEY],
  cwdOption: ({ project }) => project,
  shape: (entry) =>
    entry.transport === "stdio"
      ? { command: entry.command, args: entry.args }
      : { serverUrl: entry.url, ...bearer(entry, (name) => `\${env:${name}}`) },
  reach: (value, ctx) =>
    reachCommon(value, {
      expand: editorStyle(ctx),
      urlKeys: ["serverUrl", "url"],
      startsIn: ctx.host.home,
      env: ctx.host.env,
    }),
};
