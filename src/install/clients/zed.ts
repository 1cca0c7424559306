/** Zed: where its settings folder is on each platform, and its `context_servers` entry (see `zed` below). */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { appDataDir, xdgConfigDir, type Host } from "../host.ts";
import { detectBy, noExpansion, reachCommon, type ClientSpec } from "./client.ts";

/**
 * Zed's settings folder: `~/.config/zed` on Linux (XDG) and macOS, `%APPDATA%\Zed` on Windows.
 * Some macOS guides name `~/.zed`; that one is used when it exists and `~/.config/zed` does not.
 */
function zedDir(host: Host): string {
  if (host.platform === "win32") return join(appDataDir(host), "Zed");
  if (host.platform === "darwin") {
    const modern = join(host.home, ".config", "zed");
    const legacy = join(host.home, ".zed");
    return !existsSync(modern) && existsSync(legacy) ? legacy : modern;
  }
  return join(xdgConfigDir(host), "zed");
}

/**
 * Zed: `settings.json` (JSON with comments), servers under `context_servers`. Zed starts a
 * server in the open project's folder (context_server_store.rs), so no `--cwd`. Older Zed
 * versions need `"source": "custom"` on a command entry and newer ones ignore it, so it is
 * written. Zed does not expand environment variables in headers, so an HTTP entry with a token
 * would have to hold the secret itself: install refuses that rather than copy a token into
 * settings.json.
 */
export const zed: ClientSpec = {
  id: "zed",
  name: "Zed",
  format: "jsonc",
  detect: (host) => detectBy(host, [zedDir(host)], ["zed", "zeditor"]),
  file: ({ host, project, scope }) =>
    scope === "user" ? join(zedDir(host), "settings.json") : join(project, ".zed", "settings.json"),
  entryPath: () => ["context_servers", SERVER_KEY],
  cwdOption: () => undefined,
  shape: (entry) => {
    if (entry.transport === "stdio") return { source: "custom", command: entry.command, args: entry.args, env: {} };
    if (entry.tokenEnv)
      return {
        refused:
          "Zed does not read environment variables in headers, and skill-central will not copy a token into settings.json; add the header by hand, or use the stdio entry",
      };
    return { url: entry.url };
  },
  reach: (value, { host, project }) => {
    // Older settings nest the command: {"command": {"path", "args", "env"}}.
    const v = value as { command?: { path?: unknown; args?: unknown; env?: unknown } } | undefined;
    const flat =
      v && typeof v.command === "object" && v.command !== null
        ? { command: v.command.path, args: v.command.args, env: v.command.env }
        : value;
    return reachCommon(flat, { expand: noExpansion, urlKeys: ["url"], startsIn: project, env: host.env });
  },
};
