import { describe, expect, test } from "bun:test";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { buildRegistry, type Registry } from "../../src/registry/registry.ts";

const empty = (): Registry => buildRegistry([], []).registry;

describe("LiveRegistry", () => {
  test("requests that arrive before the first load wait for it", async () => {
    const source = new LiveRegistry();
    const first = empty();
    const waiting = source.current();
    source.swap(first, 5);
    expect(await waiting).toBe(first);
    expect(source.pageSize()).toBe(5);
  });

  test("a swap replaces the snapshot whole; a request that already has the old one keeps it", async () => {
    const source = new LiveRegistry();
    const [a, b] = [empty(), empty()];
    source.swap(a);
    const held = await source.current();
    source.swap(b);
    expect(held).toBe(a);
    expect(await source.current()).toBe(b);
  });

  test("listeners hear each swap after the first load, with the new and the replaced snapshot", () => {
    const source = new LiveRegistry();
    const heard: [Registry, Registry][] = [];
    const stop = source.onSwap((next, previous) => heard.push([next, previous]));
    const [a, b, c] = [empty(), empty(), empty()];
    source.swap(a);
    source.swap(b);
    stop();
    source.swap(c);
    expect(heard).toEqual([[b, a]]);
    expect(heard[0]![0]).toBe(b);
  });

  test("a failed first load fails the waiting requests instead of hanging them", async () => {
    const source = new LiveRegistry();
    const waiting = source.current();
    source.fail(new Error("disk on fire"));
    await expect(waiting).rejects.toThrow("disk on fire");
  });
});
