/** Fenced code blocks of a markdown text, with their language and the line they start on. */
export function fencedBlocks(markdown: string): { lang: string; body: string; line: number }[] {
  const blocks: { lang: string; body: string; line: number }[] = [];
  for (const match of markdown.matchAll(/^```([\w-]*)[^\n]*\n([\s\S]*?)^```/gm)) {
    blocks.push({ lang: match[1]!, body: match[2]!, line: markdown.slice(0, match.index).split("\n").length });
  }
  return blocks;
}

/** The text of a `## heading` section, up to the next `## `. */
export function section(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`no section "${heading}"`);
  const rest = markdown.slice(at + heading.length + 2);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** A client config entry for a server reached over HTTP rather than started as a command. */
export function isRemote(entry: unknown): boolean {
  const e = entry as Record<string, unknown>;
  return typeof e === "object" && e !== null && ("url" in e || "serverUrl" in e || "httpUrl" in e);
}
