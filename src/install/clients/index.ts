/** Every client install knows, in the order they are listed. */
import type { ClientId, ClientSpec } from "./client.ts";
import { claudeCode } from "./claude-code.ts";
import { claudeDesktop } from "./claude-desktop.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import { opencode } from "./opencode.ts";
import { vscode } from "./vscode.ts";
import { windsurf } from "./windsurf.ts";
import { zed } from "./zed.ts";

export const CLIENTS: readonly ClientSpec[] = [
  claudeCode,
  claudeDesktop,
  cursor,
  windsurf,
  vscode,
  codex,
  zed,
  gemini,
  opencode,
];

export function clientById(id: ClientId): ClientSpec {
  return CLIENTS.find((c) => c.id === id)!;
}
