import { describe, expect, test } from "bun:test";
import {
  BUSY_RETRY_AFTER_S,
  Capacity,
  MAX_QUEUED_ANSWER_BYTES,
  MAX_REQUESTS_IN_FLIGHT,
  MAX_SESSION_REQUESTS_IN_FLIGHT,
  TURN_BUDGET_MS,
} from "../../src/mcp/http/capacity.ts";

/**
 * The caps of the HTTP endpoint, driven directly: answers that never finish hold their slots, an
 * answer whose body nobody reads holds its bytes, and answers that keep the thread busy yield the
 * event loop. (test/e2e/slow-clients-suite.ts has the same over real sockets.)
 */
const request = (session?: string) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: session === undefined ? {} : { "Mcp-Session-Id": session },
  });
const ok = () => Promise.resolve(Response.json({ jsonrpc: "2.0", id: 1, result: {} }));

async function refusal(
  response: Response,
): Promise<{ status: number; retryAfter: string | null; code: number; message: string }> {
  const body = (await response.json()) as { error: { code: number; message: string } };
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    code: body.error.code,
    message: body.error.message,
  };
}

describe("HTTP capacity", () => {
  test(`a session has ${MAX_SESSION_REQUESTS_IN_FLIGHT} requests in flight at most; the next gets 503 with Retry-After, other sessions go on`, async () => {
    const capacity = new Capacity();
    const gate = Promise.withResolvers<void>();
    const held = Array.from({ length: MAX_SESSION_REQUESTS_IN_FLIGHT }, () =>
      capacity.serve(request("s1"), async () => {
        await gate.promise;
        return ok();
      }),
    );
    const refused = await capacity.serve(request("s1"), ok);
    expect(await refusal(refused)).toEqual({
      status: 503,
      retryAfter: String(BUSY_RETRY_AFTER_S),
      code: -32000,
      message: `Server busy: ${MAX_SESSION_REQUESTS_IN_FLIGHT} requests of this session are in flight (the limit); retry after ${BUSY_RETRY_AFTER_S} s`,
    });
    expect((await capacity.serve(request("s2"), ok)).status).toBe(200);
    gate.resolve();
    for (const response of await Promise.all(held)) expect(response.status).toBe(200);
    expect((await capacity.serve(request("s1"), ok)).status).toBe(200);
  });

  test(`${MAX_REQUESTS_IN_FLIGHT} requests in flight in all; the next gets 503 at once`, async () => {
    const capacity = new Capacity();
    const gate = Promise.withResolvers<void>();
    const held = Array.from({ length: MAX_REQUESTS_IN_FLIGHT }, (_, i) =>
      capacity.serve(request(i % 2 ? undefined : `s${i}`), async () => {
        await gate.promise;
        return ok();
      }),
    );
    expect(await refusal(await capacity.serve(request(), ok))).toMatchObject({
      status: 503,
      retryAfter: String(BUSY_RETRY_AFTER_S),
      message: expect.stringContaining(`${MAX_REQUESTS_IN_FLIGHT} requests are in flight (the limit)`),
    });
    gate.resolve();
    await Promise.all(held);
    expect((await capacity.serve(request(), ok)).status).toBe(200);
  });

  test("answers nobody has taken count until read or dropped; past the cap new requests get 503", async () => {
    const capacity = new Capacity();
    const size = MAX_QUEUED_ANSWER_BYTES / 2 + 1;
    const big = () =>
      Promise.resolve(
        new Response(new Uint8Array(size).fill(120), { headers: { "Content-Type": "application/json" } }),
      );
    const first = await capacity.serve(request(), big);
    const second = await capacity.serve(request(), big);
    expect(await refusal(await capacity.serve(request(), ok))).toMatchObject({
      status: 503,
      message: expect.stringContaining("waiting for their clients to read them (the limit is 64 MiB)"),
    });
    // Read to the end: released.
    expect((await first.arrayBuffer()).byteLength).toBe(size);
    expect((await capacity.serve(request(), ok)).status).toBe(200);
    // A client that goes away: released too.
    const third = await capacity.serve(request(), big);
    expect((await capacity.serve(request(), ok)).status).toBe(503);
    await third.body!.cancel();
    await second.body!.cancel();
    expect((await capacity.serve(request(), ok)).status).toBe(200);
  });

  test("small answers and event streams pass through unchanged", async () => {
    const capacity = new Capacity();
    const small = await capacity.serve(request(), ok);
    expect(await small.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const stream = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode(": open\n\n")) });
    const sse = new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
    expect(await capacity.serve(request(), () => Promise.resolve(sse))).toBe(sse);
  });

  test(`answers that keep the thread busy past ${TURN_BUDGET_MS} ms let other events run between them`, async () => {
    const capacity = new Capacity();
    const order: string[] = [];
    const busy = (name: string) => async () => {
      const until = performance.now() + TURN_BUDGET_MS + 5;
      while (performance.now() < until);
      order.push(name);
      return Response.json({});
    };
    setImmediate(() => order.push("other event"));
    await Promise.all(["a", "b", "c"].map((name) => capacity.serve(request(), busy(name))));
    expect(order).toEqual(["a", "other event", "b", "c"]);
  });
});
