/**
 * No call in src/ takes a spread of an array as its arguments (`Math.max(...xs)`,
 * `list.push(...more)`): JavaScriptCore puts each argument on the stack, so a spread of a few
 * hundred thousand elements throws "Maximum call stack size exceeded" (issue 46: `overlap` died
 * so on 600,000 pairs). Loops and `for … of` cost the same and have no limit. The few spreads of
 * lists bounded by construction are named below, with their bound.
 *
 * The scan reads the code as tokens (comments, strings, template text and regular expressions
 * left out), finds each parenthesised argument list of a call (not a function's parameters:
 * those are followed by `{`, `:` or `=>`), and reports a `...` directly inside it.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/server.ts";

/** Spread arguments whose list is bounded by construction, as `file: callee(...expression` → why. */
const BOUNDED: Record<string, string> = {
  "src/cli.ts: Math.max(...specs": "the commands of this program",
  "src/commands/support/options.ts: Math.max(...lines": "a command's own options",
  "src/board/page/insights-view.ts: Math.max(...usage": "USAGE_DAYS (30) buckets",
  "src/stdio-guard.ts: console.error(...args": "the arguments of one console call, passed on",
  "src/config/resolve-config.ts: mergeHttpSettings(...read":
    "the config files of one project (the user's and the project's)",
  "src/storage/usage-sqlite.ts: all(...r": "one SQL statement's placeholders",
  "src/storage/allowed-signers.ts: Date(...parts": "the six parts of a date and time",
  "src/storage/allowed-signers.ts: Date.UTC(...parts": "the six parts of a date and time",
  "src/load/audit-records.ts: join(...first": "the segments of one path",
  "src/board/audits.ts: join(...f": "the segments of one path",
  "src/audit/scan.ts: String.fromCodePoint(...chunk": "at most 4,096 code points: a UTF-32 file is decoded in chunks",
};

const KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "function",
  "return",
  "typeof",
  "await",
  "yield",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "else",
  "do",
]);

/** The code with comments, string and template text and regular expressions blanked (offsets kept). */
function codeOnly(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  // Braces opened inside `${`: when one closes at depth 0, the template resumes.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  let last = "";
  const template = (start: number) => {
    let k = start;
    while (k < text.length && text[k] !== "`") {
      if (text[k] === "\\") k += 2;
      else if (text[k] === "$" && text[k + 1] === "{") {
        blank(start, k);
        templates.push(depth);
        depth++;
        return k + 2;
      } else k++;
    }
    blank(start, k);
    return k + 1;
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      blank(i, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2) + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let k = i + 1;
      while (k < text.length && text[k] !== c) k += text[k] === "\\" ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
      last = "x";
    } else if (c === "`") {
      i = template(i + 1);
      last = "x";
    } else if (c === "/" && (last === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) || /\b(return|typeof)$/.test(last))) {
      let k = i + 1;
      let inClass = false;
      while (k < text.length && (inClass || text[k] !== "/")) {
        if (text[k] === "\\") k++;
        else if (text[k] === "[") inClass = true;
        else if (text[k] === "]") inClass = false;
        k++;
      }
      blank(i + 1, k);
      i = k + 1;
      last = "x";
    } else if (c === "{") {
      depth++;
      last = c;
      i++;
    } else if (c === "}") {
      depth--;
      if (templates.length > 0 && templates.at(-1) === depth) {
        templates.pop();
        i = template(i + 1);
        last = "x";
      } else {
        last = c;
        i++;
      }
    } else {
      if (!/\s/.test(c)) {
        const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 40));
        if (word) {
          last = word[0] === "return" || word[0] === "typeof" ? word[0] : "x";
          i += word[0].length;
          continue;
        }
        last = c;
      }
      i++;
    }
  }
  return out.join("");
}

interface Site {
  file: string;
  line: number;
  key: string;
}

/** Each `...` directly inside a call's argument list. */
function spreadArguments(file: string, text: string): Site[] {
  const code = codeOnly(text);
  const sites: Site[] = [];
  const stack: { call: boolean; start: number; callee: string }[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === "(" || c === "[" || c === "{") {
      let call = false;
      let callee = "";
      if (c === "(") {
        const before = code.slice(Math.max(0, i - 80), i).trimEnd();
        const word = /([A-Za-z_$][\w$.]*)$/.exec(before)?.[1];
        const lastWord = word?.split(".").at(-1);
        if (word !== undefined && !KEYWORDS.has(lastWord!)) {
          // `function name(` and `name(…) {` are declarations; their closing paren is checked below.
          call = !/\bfunction\s*\*?\s*[\w$]*$/.test(before);
          callee = word;
        } else if (/[)\]>]$|\?\.$/.test(before)) call = true;
      }
      stack.push({ call, start: i, callee });
    } else if (c === ")" || c === "]" || c === "}") {
      const open = stack.pop();
      if (c === ")" && open?.call) {
        const after = code.slice(i + 1, i + 40).trimStart();
        const declaration = after.startsWith("{") || after.startsWith("=>") || /^:\s*[\w{[(<]/.test(after);
        if (declaration) continue;
        const inner = code.slice(open.start + 1, i);
        // Only spreads at the list's own depth.
        let depth = 0;
        for (let k = 0; k < inner.length; k++) {
          const ch = inner[k]!;
          if ("([{".includes(ch)) depth++;
          else if (")]}".includes(ch)) depth--;
          else if (depth === 0 && inner.startsWith("...", k)) {
            const at = open.start + 1 + k;
            const expression = /^\.\.\.\s*([\w$]*)/.exec(code.slice(at))![1];
            sites.push({
              file,
              line: code.slice(0, at).split("\n").length,
              key: `${file}: ${open.callee}(...${expression}`,
            });
            k += 2;
          }
        }
      }
    }
  }
  return sites;
}

describe("no spread of an unbounded list into a call's arguments", () => {
  test("the scan finds spreads in calls, and not rest parameters or array and object spreads", () => {
    const found = spreadArguments(
      "x.ts",
      [
        "const a = Math.max(...xs);",
        "list.push(1, ...more.map((m) => m));",
        "function f(...rest: number[]) { return [...rest, ...{ a }]; }",
        "const g = (...args: string[]): void => h({ ...args });",
        "class C { m(...args: string[]) { return args; } }",
        'const s = "push(...no)"; // push(...no)',
        "const t = `${fn(...yes)} push(...no)`;",
        "const r = /\\(\\.\\.\\./.test(w(...also));",
      ].join("\n"),
    );
    expect(found.map((s) => s.key)).toEqual([
      "x.ts: Math.max(...xs",
      "x.ts: list.push(...more",
      "x.ts: fn(...yes",
      "x.ts: w(...also",
    ]);
  });

  test("src/ has none but the bounded ones named in this test", async () => {
    const sites: Site[] = [];
    for await (const rel of new Glob("src/**/*.ts").scan(REPO_ROOT)) {
      if (rel.endsWith(".generated.ts")) continue;
      sites.push(...spreadArguments(rel, await Bun.file(join(REPO_ROOT, rel)).text()));
    }
    expect(sites.filter((s) => !(s.key in BOUNDED)).map((s) => `${s.key} (line ${s.line})`)).toEqual([]);
  });
});
