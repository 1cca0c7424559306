import { describe, expect, test } from "bun:test";
import { jsonErrorOffset } from "../../src/storage/json-error.ts";

/** Where strict JSON goes wrong, for the line and column of a JSON skill file's syntax error. */
describe("jsonErrorOffset", () => {
  test("points at the mistake people make by hand", () => {
    const at = (text: string) => {
      const offset = jsonErrorOffset(text);
      return offset < 0 ? "valid" : text.slice(offset, offset + 4);
    };
    expect(at('{"id": "a",}')).toBe(",}"); // a trailing comma, not the brace after it
    expect(at('{"a": [1, 2,]}')).toBe(",]}");
    expect(at("{\"id\": 'a'}")).toBe("'a'}"); // single quotes
    expect(at('{"id": "a" "b": 1}')).toBe('"b":'); // a missing comma
    expect(at('{"a": 01}')).toBe("1}"); // a leading zero
    expect(at('{"a": "line\nbreak"}')).toBe("\nbre"); // a raw newline in a string
    expect(at('"\\q"')).toBe('\\q"'); // an unknown escape
    expect(at('{"a": 1} x')).toBe("x"); // text after the value
    expect(at('{"a": 1 // note\n}')).toBe("// n"); // a comment
    expect(jsonErrorOffset('{"a": [1')).toBe(8); // cut short: the end
  });

  test("where jsonc-parser's token is wider than the mistake, the mistake is pointed at", () => {
    const at = (text: string) => text.slice(jsonErrorOffset(text), jsonErrorOffset(text) + 4);
    expect(at("[truex]")).toBe("x]"); // a value, then a stray word
    expect(at('{"a": 1.}')).toBe(".}"); // a number cut short
    expect(at("[1e+]")).toBe("e+]");
    expect(at("1 nullx")).toBe("null"); // no value belongs here at all
    expect(at('{"a": "x\\u12"}')).toBe("\\u12"); // a short \u escape inside the string
    expect(at('{"a": "\tb"}')).toBe('\tb"}'); // a raw tab inside the string
    expect(at('{"a" "b\\q"}')).toBe('"b\\q'); // a bad string where the colon belongs
    expect(jsonErrorOffset('"abc')).toBe(4); // a string never closed: the end
  });

  test("agrees with JSON.parse on what is valid, over many generated texts", () => {
    const pieces = [
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      '"a"',
      '"b\\n"',
      "1",
      "-2.5e3",
      "true",
      "null",
      " ",
      "'x'",
      "01",
      '"\\u00e9"',
      '"\\x"',
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % pieces.length;
    };
    let valid = 0;
    for (let i = 0; i < 5000; i++) {
      const text = Array.from({ length: 1 + (i % 9) }, () => pieces[next()]).join("");
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      if (parses) valid++;
      expect({ text, valid: jsonErrorOffset(text) < 0 }).toEqual({ text, valid: parses });
    }
    expect(valid).toBeGreaterThan(50);
  });
});
