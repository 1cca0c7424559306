/** opencode: its config files and both of its schemas for MCP servers (see `opencode` below). */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SERVER_KEY } from "../entry.ts";
import { xdgConfigDir } from "../host.ts";
import { bearer, detectBy, stringEnv, stringMap, stringsOf, type ClientSpec, type Refusal } from "./client.ts";

/** opencode reads the first of these that exists (`.json` before `.jsonc`). */
function firstExisting(candidates: readonly string[]): string {
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/** The newer schema nests servers under `mcp.servers` (with `disabled`); v1 puts them under `mcp` (with `enabled`). */
function usesServersTable(data: unknown): boolean {
  const servers = (data as { mcp?: { servers?: unknown } } | undefined)?.mcp?.servers;
  return (
    typeof servers === "object" &&
    servers !== null &&
    !Array.isArray(servers) &&
    typeof (servers as { type?: unknown }).type !== "string"
  );
}

/**
 * opencode: `~/.config/opencode/opencode.json(c)` or the project's `opencode.json(c)` /
 * `.opencode/opencode.json(c)` (comments allowed). A local server is `{"type": "local",
 * "command": [cmd, ...args]}`; a remote one `{"type": "remote", "url", "headers"}` with
 * `{env:NAME}` expanded. opencode starts servers in the project. Its docs show two schemas: v1
 * (servers directly under `mcp`, `enabled`) and the newer one (under `mcp.servers`,
 * `disabled`); install writes the one the file already uses, and v1 in a new file.
 */
export const opencode: ClientSpec = {
  id: "opencode",
  name: "opencode",
  format: "jsonc",
  detect: (host) => detectBy(host, [join(xdgConfigDir(host), "opencode")], ["opencode"]),
  file: ({ host, project, scope }) => {
    if (scope === "user")
      return firstExisting(["opencode.json", "opencode.jsonc"].map((f) => join(xdgConfigDir(host), "opencode", f)));
    return firstExisting(
      ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"].map((f) =>
        join(project, f),
      ),
    );
  },
  entryPath: (data) => (usesServersTable(data) ? ["mcp", "servers", SERVER_KEY] : ["mcp", SERVER_KEY]),
  cwdOption: () => undefined,
  shape: (entry, _ctx, data) => {
    const v1 = !usesServersTable(data);
    if (entry.transport === "stdio")
      return { type: "local", command: [entry.command, ...entry.args], ...(v1 && { enabled: true }) };
    return {
      type: "remote",
      url: entry.url,
      ...bearer(entry, (name) => `{env:${name}}`),
      ...(v1 && { enabled: true }),
    };
  },
  reach: (value, { host, project }) => {
    const entry = (value ?? {}) as Record<string, unknown>;
    const expand = (text: string) => text.replace(/\{env:([^}]+)\}/g, (_, name: string) => host.env[name] ?? "");
    if (entry.type === "remote" && typeof entry.url === "string") {
      const headers = stringMap(entry.headers);
      if (!headers) return { refused: "headers must be a map of strings" };
      return {
        transport: "http",
        url: expand(entry.url),
        headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, expand(v)])),
      };
    }
    const command = stringsOf(entry.command);
    const environment = stringMap(entry.environment);
    if (!command || command.length === 0 || !environment)
      return {
        refused: "a local entry needs command as a list of strings (and environment as a map)",
      } satisfies Refusal;
    const [program, ...args] = command.map(expand);
    return {
      transport: "stdio",
      command: program!,
      args,
      env: {
        ...stringEnv(host.env),
        ...Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, expand(v)])),
      },
      cwd: project,
    };
  },
  template: '{\n  "$schema": "https://opencode.ai/config.json"\n}\n',
};
