/**
 * Where strict JSON first goes wrong in a text, as an offset, or -1 when it is valid. Bun's
 * `JSON.parse` says what is wrong but not where, and the YAML reading of the same text (which
 * gives positions) accepts much that JSON does not (trailing commas, single quotes). Run only
 * on a file that failed to parse; iterative, so no nesting depth can overflow the stack.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const stack: ("{" | "[")[] = [];
  type State = "value" | "first-value" | "key" | "first-key" | "after";
  let state: State = "value";
  const skipSpace = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  for (;;) {
    skipSpace();
    if (i >= text.length) return state === "after" && stack.length === 0 ? -1 : i;
    const c = text[i]!;
    if (state === "after") {
      const top = stack[stack.length - 1];
      if (top === undefined) return i; // text after the value
      if (c === ",") {
        // A trailing comma is the mistake, not the bracket after it.
        const comma = i++;
        skipSpace();
        if (text[i] === "}" || text[i] === "]") return comma;
        state = top === "{" ? "key" : "value";
      } else if ((top === "{" && c === "}") || (top === "[" && c === "]")) {
        stack.pop();
        i++;
      } else return i;
    } else if (state === "key" || state === "first-key") {
      if (state === "first-key" && c === "}") {
        stack.pop();
        i++;
        state = "after";
        continue;
      }
      if (c !== '"') return i;
      const end = stringEnd(text, i);
      if (end < 0) return -end - 1;
      i = end;
      skipSpace();
      if (text[i] !== ":") return i;
      i++;
      state = "value";
    } else {
      if (state === "first-value" && c === "]") {
        stack.pop();
        i++;
        state = "after";
      } else if (c === "{" || c === "[") {
        stack.push(c);
        i++;
        state = c === "{" ? "first-key" : "first-value";
      } else {
        const end = c === '"' ? stringEnd(text, i) : scalarEnd(text, i);
        if (end < 0) return -end - 1;
        i = end;
        state = "after";
      }
    }
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** The offset after a number or literal at `i`, or -(offset of the problem) - 1. */
function scalarEnd(text: string, i: number): number {
  for (const pattern of [NUMBER, LITERAL]) {
    pattern.lastIndex = i;
    if (pattern.test(text)) return pattern.lastIndex;
  }
  return -i - 1;
}

/** The offset after the string that starts at `i`, or -(offset of the problem) - 1. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -j - 1;
    if (c === 0x5c) {
      const next = text[j + 1];
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) return -j - 1;
        j += 5;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) j++;
      else return -j - 1;
    }
  }
  return -text.length - 1;
}
