import { describe, expect, test } from "bun:test";
import { visibleLine, visibleText } from "../../src/visible-text.ts";

describe("text from a file or a client, made visible for a terminal", () => {
  test("an OSC 52 clipboard write is shown as text, its ESC and BEL escaped", () => {
    expect(visibleLine("evil\x1b]52;c;ZWNobyBwd25lZA==\x07name")).toBe("evil\\x1b]52;c;ZWNobyBwd25lZA==\\x07name");
  });

  test("C1 controls (a one-byte CSI) and DEL are escaped", () => {
    expect(visibleLine("a\u009b2Jb\u007fc")).toBe("a\\u009b2Jb\\x7fc");
  });

  test("bidirectional overrides and isolates are escaped", () => {
    expect(visibleLine("safe\u202etxt.exe\u2066x\u2069")).toBe("safe\\u202etxt.exe\\u2066x\\u2069");
  });

  test("in a line, runs of line breaks and tabs fold to one space, so a carriage return cannot overwrite", () => {
    expect(visibleLine("ok\r\n\tfake line")).toBe("ok fake line");
    expect(visibleLine("done\rEVIL")).toBe("done EVIL");
  });

  test("in a paragraph, line breaks and tabs stay and a bare carriage return is escaped", () => {
    expect(visibleText("first\n\tsecond\rthird")).toBe("first\n\tsecond\\x0dthird");
  });

  test("ordinary text, emoji and right-to-left scripts pass unchanged", () => {
    const text = "Greet someone — 👋🏽 שלום مرحبا";
    expect(visibleLine(text)).toBe(text);
    expect(visibleText(text)).toBe(text);
  });
});
