/**
 * Gemini CLI: `~/.gemini/settings.json` or the project's `.gemini/settings.json` (comments
 * allowed), `mcpServers`. It runs in the project and starts servers there (or in an entry's
 * `cwd`). Streamable HTTP is `httpUrl` (`url` means SSE); `$VAR` and `${VAR}` are expanded.
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { bearer, detectBy, reachCommon, shellStyle, type ClientSpec } from "./client.ts";

export const gemini: ClientSpec = {
  id: "gemini",
  name: "Gemini CLI",
  format: "jsonc",
  detect: (host) => detectBy(host, [join(host.home, ".gemini")], ["gemini"]),
  file: ({ host, project, scope }) => join(scope === "user" ? host.home : project, ".gemini", "settings.json"),
  entryPath: () => ["mcpServers", SERVER_KEY],
  cwdOption: () => undefined,
  shape: (entry) =>
    entry.transport === "stdio"
      ? { command: entry.command, args: entry.args }
      : { httpUrl: entry.url, ...bearer(entry, (name) => `\${${name}}`) },
  reach: (value, { host, project }) =>
    reachCommon(value, {
      expand: shellStyle(host.env, true),
      urlKeys: ["httpUrl", "url"],
      startsIn: project,
      env: host.env,
      cwdKey: "cwd",
    }),
};
