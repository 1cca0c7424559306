/**
 * Codex: `~/.codex/config.toml` (`$CODEX_HOME` when set) or a trusted project's
 * `.codex/config.toml`, one `[mcp_servers.<name>]` table per server. The Codex CLI starts stdio
 * servers in the folder it runs in (or an entry's `cwd`), so the entry needs no `--cwd`. A
 * remote server is `url` plus `bearer_token_env_var`, the name of the variable that holds the
 * token (Codex refuses a token written in the file).
 */
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { detectBy, isRefusal, reachCommon, stringEnv, stringMap, type ClientSpec } from "./client.ts";

export const codex: ClientSpec = {
  id: "codex",
  name: "Codex",
  format: "toml",
  detect: (host) => detectBy(host, [host.env.CODEX_HOME || join(host.home, ".codex")], ["codex"]),
  file: ({ host, project, scope }) =>
    scope === "user"
      ? join(host.env.CODEX_HOME || join(host.home, ".codex"), "config.toml")
      : join(project, ".codex", "config.toml"),
  entryPath: () => ["mcp_servers", SERVER_KEY],
  cwdOption: () => undefined,
  shape: (entry) =>
    entry.transport === "stdio"
      ? { command: entry.command, args: entry.args }
      : { url: entry.url, ...(entry.tokenEnv ? { bearer_token_env_var: entry.tokenEnv } : {}) },
  reach: (value, { host, project }) => {
    const entry = (value ?? {}) as Record<string, unknown>;
    if (typeof entry.url === "string") {
      const headers = stringMap(entry.http_headers);
      if (!headers) return { refused: "http_headers must be a table of strings" };
      const fromEnv = stringMap(entry.env_http_headers) ?? {};
      for (const [header, variable] of Object.entries(fromEnv))
        if (host.env[variable]) headers[header] = host.env[variable]!;
      if (typeof entry.bearer_token_env_var === "string")
        headers.Authorization = `Bearer ${host.env[entry.bearer_token_env_var] ?? ""}`;
      return { transport: "http", url: entry.url, headers };
    }
    const reach = reachCommon(value, {
      expand: (t) => t,
      urlKeys: [],
      startsIn: project,
      env: host.env,
      cwdKey: "cwd",
    });
    if (isRefusal(reach) || reach.transport !== "stdio") return reach;
    // `env_vars` passes variables through from Codex's own environment, which is ours here.
    return { ...reach, env: { ...stringEnv(host.env), ...reach.env } };
  },
};
