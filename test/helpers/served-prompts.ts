/**
 * What a server serves, read through a raw client as the layer tests compare it: a prompt's text,
 * and the prompts' names without the server's own `skills:` prompts. Shared by the suites that
 * watch a layer's copy arrive or be refused (audit-gate-suite.ts, fetch-missing-suite.ts).
 */
import type { RawClient } from "./raw-client.ts";

export async function promptText(client: RawClient, name: string): Promise<string> {
  const result = await client.call<{ messages: { content: { text: string } }[] }>("prompts/get", {
    name,
    arguments: {},
  });
  return result.messages[0]!.content.text;
}

/** The names of the skills' prompts: the server's own (`skills:compose`, …) left out. */
export async function promptNames(client: RawClient): Promise<string[]> {
  const { prompts } = await client.call<{ prompts: { name: string }[] }>("prompts/list");
  return prompts.map((p) => p.name).filter((n) => !n.startsWith("skills:"));
}
