import { runStdio } from "../serve/stdio.ts";
import type { ServeOptions } from "../serve/skills.ts";

export type McpOptions = ServeOptions;

/** `skill-central mcp`: the stdio server (src/serve/stdio.ts owns its start-up, logging and shutdown). */
export async function runMcp(options: McpOptions): Promise<void> {
  await runStdio(options);
}
