/**
 * The clients the board can show "as it sees it", each by the `clientInfo.name` it sends
 * (src/mcp/catalog/client-profiles.ts decides what that name gets). "Other" sends none.
 */
import type { ClientChoice } from "./wire.ts";

const CLIENTS: readonly (ClientChoice & { name?: string })[] = [
  { key: "claude-code", label: "Claude Code", name: "claude-code" },
  { key: "cursor", label: "Cursor", name: "cursor-vscode" },
  { key: "vscode", label: "VS Code", name: "Visual Studio Code" },
  { key: "windsurf", label: "Windsurf", name: "windsurf-client" },
  { key: "codex", label: "Codex", name: "codex-mcp-client" },
  { key: "cline", label: "Cline", name: "cline" },
  { key: "zed", label: "Zed", name: "zed" },
  { key: "gemini-cli", label: "Gemini CLI", name: "gemini-cli-mcp-client" },
  { key: "other", label: "Other (a client that sends no name)" },
];

export const CLIENT_CHOICES: readonly ClientChoice[] = CLIENTS.map(({ key, label }) => ({ key, label }));

export function clientByKey(key: string): { label: string; name?: string } | undefined {
  return CLIENTS.find((c) => c.key === key);
}
