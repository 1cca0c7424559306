import { describe, expect, test } from "bun:test";
import { frameId, FrameIdScanner, MAX_ID_BYTES } from "../../src/mcp/frame-id.ts";
import { classifyIncoming } from "../../src/mcp/incoming.ts";
import { mulberry32 } from "../helpers/random.ts";

describe("the top-level id of a frame, found while it streams past", () => {
  test("finds the id wherever it is, ignoring ids nested in params and look-alikes in strings", () => {
    expect(frameId('{"jsonrpc":"2.0","id":1,"method":"x"}')).toEqual({ kind: "id", id: 1 });
    expect(frameId('{"jsonrpc":"2.0","method":"x","params":{"id":5,"a":"}\\"id\\":9"},"id":"abc"}')).toEqual({
      kind: "id",
      id: "abc",
    });
    expect(frameId('{"method":"x","params":{"x":[{"id":3}]}}')).toEqual({ kind: "none" });
    expect(frameId('{ "id" : 42 }')).toEqual({ kind: "id", id: 42 });
    expect(frameId('{"\\u0069d":7}')).toEqual({ kind: "id", id: 7 });
    expect(frameId('{"id":"a\\"b"}')).toEqual({ kind: "id", id: 'a"b' });
    expect(frameId('{"id":1,"id":2}')).toEqual({ kind: "id", id: 2 });
    expect(frameId('{"identity":1,"d":2}')).toEqual({ kind: "none" });
  });

  test("an id that is null, an object, an array, a boolean, a fraction or too long is invalid; a batch is invalid; garbage has none", () => {
    for (const id of ["null", '{"a":1}', "[1]", "true", "1.5", JSON.stringify("x".repeat(MAX_ID_BYTES + 1))]) {
      expect(frameId(`{"method":"m","id":${id}}`)).toEqual({ kind: "invalid" });
    }
    expect(frameId('[{"jsonrpc":"2.0","id":1,"method":"x"}]')).toEqual({ kind: "invalid" });
    expect(frameId("garbage")).toEqual({ kind: "none" });
    expect(frameId("")).toEqual({ kind: "none" });
  });

  test("the answer does not depend on how the frame is cut into chunks (seeded random cuts)", () => {
    const random = mulberry32(7);
    const frames = [
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"é","arguments":{"id":"inner","x":"${"y".repeat(300)}"}},"id":"late-ü"}`,
      `{"id" : -12 , "method":"m","params":{"s":"\\\\\\"id\\":1"}}`,
      `{"method":"m","params":{"id":1},"id":null}`,
    ];
    for (const frame of frames) {
      const whole = frameId(frame);
      const bytes = Buffer.from(frame);
      for (let trial = 0; trial < 200; trial++) {
        const scanner = new FrameIdScanner();
        let at = 0;
        while (at < bytes.length) {
          const size = 1 + Math.floor(random() * 12);
          scanner.feed(bytes.subarray(at, at + size));
          at += size;
        }
        expect(scanner.result()).toEqual(whole);
      }
    }
    expect(frameId(frames[0]!)).toEqual({ kind: "id", id: "late-ü" });
    expect(frameId(frames[1]!)).toEqual({ kind: "id", id: -12 });
    expect(frameId(frames[2]!)).toEqual({ kind: "invalid" });
  });
});

describe("sorting a parsed stdin line", () => {
  test("messages pass; batches and unusable ids are refused with id null; a readable id is echoed", () => {
    expect(classifyIncoming({ jsonrpc: "2.0", id: 1, method: "ping" }).kind).toBe("message");
    expect(classifyIncoming({ jsonrpc: "2.0", method: "notifications/initialized" }).kind).toBe("message");
    expect(classifyIncoming([])).toMatchObject({ kind: "refuse", id: null });
    expect(classifyIncoming({ jsonrpc: "2.0", id: null, method: "ping" })).toMatchObject({ kind: "refuse", id: null });
    expect(classifyIncoming({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" })).toMatchObject({
      kind: "refuse",
      id: null,
    });
    expect(classifyIncoming({ id: 7, hello: "world" })).toMatchObject({ kind: "refuse", id: 7 });
    expect(classifyIncoming({ jsonrpc: "2.0" }).kind).toBe("skip");
    expect(classifyIncoming(42).kind).toBe("skip");
    // An error response with id null is a client's answer, not a request: nothing to reply to.
    expect(classifyIncoming({ jsonrpc: "2.0", id: null, error: { code: 1, message: "m" } }).kind).toBe("skip");
  });
});
