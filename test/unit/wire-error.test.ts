import { describe, expect, test } from "bun:test";
import { SkillCentralError } from "../../src/errors.ts";
import { ProtocolError as WireError } from "@modelcontextprotocol/server";
import { MAX_MESSAGE_CHARS, toWireError } from "../../src/mcp/wire-error.ts";

describe("error messages stay bounded on the wire", () => {
  test("toWireError caps every message, keeps code and data, and maps our codes", () => {
    const huge = `Unknown tool: ${"n".repeat(1_000_000)}`;
    const fromOurs = toWireError(new SkillCentralError("unknown-tool", huge));
    expect(fromOurs.code).toBe(-32602);
    expect(fromOurs.message.length).toBe(MAX_MESSAGE_CHARS + 1);
    expect(fromOurs.message.endsWith("…")).toBe(true);
    const wire = toWireError(new WireError(-32602, "x".repeat(2_000), { uri: "u" }));
    expect(wire.message.length).toBe(MAX_MESSAGE_CHARS + 1);
    expect(wire.data).toEqual({ uri: "u" });
    const short = new WireError(-32602, "fine", { uri: "u" });
    expect(toWireError(short)).toBe(short);
    expect(toWireError(new Error("boom"))).toMatchObject({ code: -32603, message: "boom" });
    expect(toWireError(new SkillCentralError("render-failed", "bad")).code).toBe(-32603);
    expect(toWireError(new SkillCentralError("limit-exceeded", "too deep")).code).toBe(-32602);
  });
});
