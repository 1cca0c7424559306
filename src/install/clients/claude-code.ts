/**
 * Claude Code. User scope: `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`), top-level
 * `mcpServers`; project scope: `.mcp.json` at the project root (shared with the team). It starts
 * stdio servers in the project it runs in, so the entry needs no `--cwd`. It expands `${VAR}` and
 * `${VAR:-default}` in commands, args, env, URLs and headers.
 *
 * When the `claude` command exists, install goes through `claude mcp add` (see `claudeCommands`)
 * so Claude Code writes its own file; otherwise the file is edited like any other.
 */
import { join } from "node:path";
import { SERVER_KEY, type DesiredEntry, type Scope } from "../entry.ts";
import { bearer, detectBy, reachCommon, shellStyle, type ClientSpec } from "./client.ts";

export const claudeCode: ClientSpec = {
  id: "claude-code",
  name: "Claude Code",
  format: "json",
  detect: (host) =>
    detectBy(
      host,
      [
        join(host.env.CLAUDE_CONFIG_DIR || host.home, ".claude"),
        join(host.env.CLAUDE_CONFIG_DIR || host.home, ".claude.json"),
      ],
      ["claude"],
    ),
  file: ({ host, project, scope }) =>
    scope === "user" ? join(host.env.CLAUDE_CONFIG_DIR || host.home, ".claude.json") : join(project, ".mcp.json"),
  entryPath: () => ["mcpServers", SERVER_KEY],
  cwdOption: () => undefined,
  // The same fields `claude mcp add` writes, so either way gives the same file.
  shape: (entry) =>
    entry.transport === "stdio"
      ? { type: "stdio", command: entry.command, args: entry.args, env: {} }
      : { type: "http", url: entry.url, ...bearer(entry, (name) => `\${${name}}`) },
  reach: (value, { host, project }) =>
    reachCommon(value, { expand: shellStyle(host.env), urlKeys: ["url"], startsIn: project, env: host.env }),
};

/** The `claude mcp` command lines that make a change (after the `claude` executable itself). */
export function claudeCommands(action: "add" | "update" | "remove", scope: Scope, entry?: DesiredEntry): string[][] {
  const remove = ["mcp", "remove", "--scope", scope, SERVER_KEY];
  if (action === "remove" || !entry) return [remove];
  const add =
    entry.transport === "stdio"
      ? ["mcp", "add", "--scope", scope, SERVER_KEY, "--", entry.command, ...entry.args]
      : [
          "mcp",
          "add",
          "--scope",
          scope,
          "--transport",
          "http",
          SERVER_KEY,
          entry.url,
          ...(entry.tokenEnv ? ["--header", `Authorization: Bearer \${${entry.tokenEnv}}`] : []),
        ];
  return action === "update" ? [remove, add] : [add];
}
