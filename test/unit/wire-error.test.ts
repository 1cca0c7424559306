import { describe, expect, test } from "bun:test";
import { SkillCentralError } from "../../src/errors.ts";
import { excerpt, MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS, toWireError, WireError } from "../../src/mcp/wire-error.ts";

describe("error messages stay bounded", () => {
  test("excerpt keeps short input whole and cuts long input with an ellipsis, never inside a surrogate pair", () => {
    expect(excerpt("short")).toBe("short");
    const long = "x".repeat(10_000);
    expect(excerpt(long)).toBe(`${"x".repeat(MAX_QUOTED_CHARS)}…`);
    const emoji = `${"x".repeat(MAX_QUOTED_CHARS - 1)}😀tail`;
    expect(excerpt(emoji)).toBe(`${"x".repeat(MAX_QUOTED_CHARS - 1)}…`);
  });

  test("toWireError caps every message, keeps code and data, and maps our codes", () => {
    const huge = `Unknown tool: ${"n".repeat(1_000_000)}`;
    const fromOurs = toWireError(new SkillCentralError("unknown-tool", huge));
    expect(fromOurs.code).toBe(-32602);
    expect(fromOurs.message.length).toBe(MAX_MESSAGE_CHARS + 1);
    expect(fromOurs.message.endsWith("…")).toBe(true);
    const wire = toWireError(new WireError(-32602, "x".repeat(2_000), { uri: "u" }));
    expect(wire.message.length).toBe(MAX_MESSAGE_CHARS + 1);
    expect(wire.data).toEqual({ uri: "u" });
    expect(toWireError(new Error("boom"))).toMatchObject({ code: -32603, message: "boom" });
    expect(toWireError(new SkillCentralError("render-failed", "bad")).code).toBe(-32603);
  });
});
