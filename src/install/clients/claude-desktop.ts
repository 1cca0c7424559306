/**
 * Claude Desktop: one global `claude_desktop_config.json` in the app's settings folder
 * (macOS Application Support, Windows %APPDATA%, Linux ~/.config), `mcpServers`, strict JSON.
 * An app started from the desktop has no project, so the entry pins one with `--cwd`. Remote
 * servers are added in the app as connectors, not in this file.
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { appDataDir } from "../host.ts";
import { detectBy, noExpansion, reachCommon, type ClientSpec } from "./client.ts";

export const claudeDesktop: ClientSpec = {
  id: "claude-desktop",
  name: "Claude Desktop",
  format: "json",
  detect: (host) => detectBy(host, [join(appDataDir(host), "Claude")], []),
  file: ({ host, scope }) =>
    scope === "user" ? join(appDataDir(host), "Claude", "claude_desktop_config.json") : undefined,
  entryPath: () => ["mcpServers", SERVER_KEY],
  cwdOption: ({ project }) => project,
  shape: (entry) =>
    entry.transport === "stdio"
      ? { command: entry.command, args: entry.args }
      : {
          refused:
            "Claude Desktop takes remote servers as connectors (Settings → Connectors), not in its config file; install it without --http",
        },
  reach: (value, { host }) =>
    reachCommon(value, { expand: noExpansion, urlKeys: [], startsIn: host.home, env: host.env }),
};
