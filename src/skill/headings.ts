/** Enough headings to say what a long body covers; search weighs them, nothing else reads them. */
const MAX_HEADINGS = 32;
const MAX_HEADING_CHARS = 120;

const ATX = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The Markdown headings (`# …` lines, outside fenced code) of a skill's body, in order, without
 * Handlebars tags; undefined when there are none. Computed once when the skill is parsed, so the
 * search index never reads a body.
 */
export function bodyHeadings(body: string | undefined): string[] | undefined {
  if (body === undefined || !body.includes("#")) return undefined;
  const headings: string[] = [];
  let fence: string | undefined;
  // Line by line without splitting: only a line whose first character (after up to three
  // spaces) is `#`, a backtick or `~` can be a heading or a fence, and only those are cut out.
  for (let start = 0; start <= body.length; ) {
    let end = body.indexOf("\n", start);
    if (end === -1) end = body.length;
    let i = start;
    while (i < end && i - start < 3 && body.charCodeAt(i) === 32) i++;
    const first = body.charCodeAt(i);
    const line = first === 35 || first === 96 || first === 126 ? body.slice(start, end) : undefined;
    start = end + 1;
    if (line === undefined) continue;
    const fenced = FENCE.exec(line);
    if (fenced) {
      const marker = fenced[1]!;
      if (fence === undefined) fence = marker[0]!.repeat(marker.length);
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const match = ATX.exec(line.replace(/\r$/, ""));
    if (!match) continue;
    const text = match[1]!
      .replace(/\{\{[^}]*\}\}/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    if (text === "") continue;
    headings.push(text.slice(0, MAX_HEADING_CHARS));
    if (headings.length === MAX_HEADINGS) break;
  }
  return headings.length > 0 ? headings : undefined;
}

/** `{ headings }` for a skill object, or nothing. */
export function withHeadings(body: string | undefined): { headings?: string[] } {
  const headings = bodyHeadings(body);
  return headings ? { headings } : {};
}
