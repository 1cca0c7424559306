/** Where strict JSON first goes wrong in a text, for a skill or config file `JSON.parse` rejected (jsonc-parser, loaded then). */
import type { ParseError } from "jsonc-parser/lib/esm/main.js";

/**
 * jsonc-parser, loaded on first use: only a file that `JSON.parse` rejected needs it. Its ES
 * module build: the compiled binary cannot follow the UMD build's computed `require`s.
 */
function jsonc(): typeof import("jsonc-parser/lib/esm/main.js") {
  return require("jsonc-parser/lib/esm/main.js") as typeof import("jsonc-parser/lib/esm/main.js");
}

/** A string's valid start: it ends at a raw control character, a malformed escape or the end of the text. */
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;
/** jsonc-parser's errors inside a string token, which it reports at the opening quote. */
const STRING_ERRORS = new Set([
  "UnexpectedEndOfString",
  "InvalidUnicode",
  "InvalidEscapeCharacter",
  "InvalidCharacter",
]);
/** The number or literal a bad word starts with. */
const VALID_START = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/**
 * Where strict JSON first goes wrong in a text, as an offset, or -1 when it is valid. Bun's
 * `JSON.parse` says what is wrong but not where, and the YAML reading of the same text (which
 * gives positions) accepts much that JSON does not (trailing commas, single quotes). Run only
 * on a file that failed to parse. jsonc-parser's parser recurses: nesting deep enough to
 * overflow the stack (tens of thousands of brackets) gives -1, and the caller's YAML position.
 */
export function jsonErrorOffset(text: string): number {
  const errors: ParseError[] = [];
  try {
    jsonc().parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (error) {
    if (error instanceof RangeError) return -1;
    throw error;
  }
  const [first, second] = errors;
  if (!first) return -1;
  const { offset } = first;
  const code = jsonc().printParseErrorCode(first.error);
  if (STRING_ERRORS.has(code)) {
    // A bad string where no value belongs gets two errors at its start: the place is the mistake.
    if (second?.offset === offset) return offset;
    STRING_BODY.lastIndex = offset + 1;
    STRING_BODY.test(text);
    return STRING_BODY.lastIndex;
  }
  if (code === "InvalidSymbol" || code === "UnexpectedEndOfNumber") {
    // jsonc-parser reads `truex` or `1e+` as one bad word, strict JSON as a value and then a
    // mistake after it (or at it, where no value belongs): a space between the two tells which.
    VALID_START.lastIndex = offset;
    if (!VALID_START.test(text)) return offset;
    const cut = VALID_START.lastIndex;
    const split = jsonErrorOffset(`${text.slice(0, cut)} ${text.slice(cut)}`);
    return split > cut ? split - 1 : split;
  }
  // jsonc-parser puts a trailing comma's error at the bracket after it; the comma is the mistake.
  if (text[offset] === "}" || text[offset] === "]") {
    const before = text.slice(0, offset).replace(/[ \t\n\r]+$/, "");
    if (before.endsWith(",")) return before.length - 1;
  }
  return offset;
}
