import { describe, expect, test } from "bun:test";
import { bodyHeadings, bodyOutline } from "../../src/skill/headings.ts";

/**
 * The rules bodyHeadings implements by hand, as regexes over split lines: the definition it
 * must match on every body (the regexes were its implementation until they proved slow).
 */
function headingsByRegex(body: string | undefined): string[] | undefined {
  if (body === undefined || !body.includes("#")) return undefined;
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of body.split("\n")) {
    const fenced = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenced) {
      const marker = fenced[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const match = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line.replace(/\r$/, ""));
    if (!match) continue;
    const text = match[1]!
      .replace(/\{\{[^}]*\}\}/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    if (text === "") continue;
    headings.push(text.slice(0, 120));
    if (headings.length === 32) break;
  }
  return headings.length > 0 ? headings : undefined;
}

describe("a body's headings", () => {
  test("ATX headings of one to six #s followed by a blank; seven #s or none after is text", () => {
    expect(bodyHeadings("# One\n###### Six\n####### Seven\n#Tight\n#\n# \n")).toEqual(["One", "Six"]);
  });

  test("up to three spaces of indent; four spaces is code, not a heading", () => {
    expect(bodyHeadings("   # Three\n    # Four\n\t# Tab\n")).toEqual(["Three"]);
  });

  test("a closing run of #s after a blank is dropped; a # inside the text or stuck to it stays", () => {
    expect(bodyHeadings("## Closing ##\n## C# notes\n## Tail#\n# ###\n## Both ## \t\n")).toEqual([
      "Closing",
      "C# notes",
      "Tail#",
      "###",
      "Both",
    ]);
  });

  test("CRLF lines: the \\r is not part of the heading; a \\r inside the line stops it being one", () => {
    expect(bodyHeadings("# Windows\r\n## Also ##\r\n# Split\rline\r\n")).toEqual(["Windows", "Also"]);
  });

  test("nothing inside backtick or tilde fences, which close only on a run as long of the same character", () => {
    const body = [
      "# Before",
      "````md",
      "# inside",
      "```",
      "~~~",
      "# still inside",
      "````",
      "   ~~~",
      "# inside tildes",
      "```",
      "~~~~",
      "# After",
      "    ```",
      "# Not fenced by an indented-code line",
    ].join("\r\n");
    expect(bodyHeadings(body)).toEqual(["Before", "After", "Not fenced by an indented-code line"]);
  });

  test("Handlebars tags and whitespace runs leave single spaces; 120 characters at most; 32 headings at most", () => {
    expect(bodyHeadings("#  Step {{n}}:\u00a0\u00a0check  it \n# {{only}}\n")).toEqual(["Step : check it"]);
    expect(bodyHeadings(`# ${"x".repeat(200)}\n`)).toEqual(["x".repeat(120)]);
    const many = Array.from({ length: 40 }, (_, i) => `# H${i}`).join("\n");
    expect(bodyHeadings(many)).toEqual(Array.from({ length: 32 }, (_, i) => `H${i}`));
  });

  test("the outline counts every line as an editor does, also past the 32nd heading and without any #", () => {
    const many = `${Array.from({ length: 40 }, (_, i) => `# H${i}`).join("\n")}\n\ntail\n`;
    expect(bodyOutline(many)).toEqual({ headings: bodyHeadings(many), lines: 42 });
    expect(bodyOutline(`${many}x`)).toEqual({ headings: bodyHeadings(many), lines: 43 });
    expect(bodyOutline("a\nb\n")).toEqual({ headings: undefined, lines: 2 });
    expect(bodyOutline("")).toEqual({ headings: undefined, lines: 1 });
    expect(bodyOutline("```\n# in code\n```")).toEqual({ headings: undefined, lines: 3 });
  });

  test("matches the regex rules (and split for lines) on 60,000 generated bodies", () => {
    const pieces = [" ", "   ", "\t", "#", "##", "#######", "`", "```", "````", "~", "~~~", "\r", "\n", "\n", "\r\n"];
    pieces.push("a", "b c", "{{x}}", "{{", "}}", "\u2028", "\u2029", "\u00a0", "\v", "\f", "é", "\ufeff", "\u3000");
    let seed = 42;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >>> 8) % n;
    };
    let differing = 0;
    let withHeadings = 0;
    for (let t = 0; t < 60_000; t++) {
      let body = "";
      for (let k = next(48); k > 0; k--) {
        // Line starts are where the rules are decided: make them common.
        body += next(3) === 0 ? `\n${" ".repeat(next(5))}${"#".repeat(next(8))} ` : pieces[next(pieces.length)];
      }
      const expected = headingsByRegex(body);
      if (expected) withHeadings++;
      const lines = body.split("\n").length - (body.endsWith("\n") ? 1 : 0);
      if (JSON.stringify(bodyHeadings(body)) !== JSON.stringify(expected)) differing++;
      else if (JSON.stringify(bodyOutline(body)) !== JSON.stringify({ headings: expected, lines })) differing++;
    }
    expect(differing).toBe(0);
    expect(withHeadings).toBeGreaterThan(10_000);
  });

  test("none: no # at all, only # inside fences or text, or no body", () => {
    expect(bodyHeadings("plain text\n")).toBeUndefined();
    expect(bodyHeadings("```\n# code\n```\ntext # not a heading\n")).toBeUndefined();
    expect(bodyHeadings(undefined)).toBeUndefined();
  });
});
