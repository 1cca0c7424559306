import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { guardedArgumentProblems } from "../../src/invoke/guarded-validation.ts";
import type { JsonSchema } from "../../src/skill/json-schema.ts";

// Not proven safe by the checker, so checked on the worker.
const schema = (): JsonSchema => ({
  type: "object",
  properties: { s: { type: "string", pattern: "^(a+)+$" } },
  required: ["s"],
});

describe("checking arguments on the guarded worker", () => {
  const spinners: Subprocess[] = [];
  afterAll(() => {
    for (const p of spinners) p.kill("SIGKILL");
  });

  test("answers, right or wrong, within the limit for ordinary input", async () => {
    const s = schema();
    expect(await guardedArgumentProblems(s, { s: "aaaa" })).toEqual([]);
    expect((await guardedArgumentProblems(s, { s: "b" }))[0]!.message).toContain("must match the pattern");
  });

  test("a hostile input is refused for the work it takes, naming the limit", async () => {
    const error = await guardedArgumentProblems(schema(), { s: `${"a".repeat(40)}!` }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toStartWith("Checking the arguments took over 100 ms (the limit)");
  });

  test("on a machine busy with other processes, starting the worker and compiling a schema never count, and slow scheduling does not refuse a call", async () => {
    for (let i = 0; i < 6; i++)
      spinners.push(Bun.spawn([process.execPath, "-e", "for (;;) {}"], { stdout: "ignore", stderr: "ignore" }));
    await Bun.sleep(100);
    const calls = Array.from({ length: 30 }, (_, i) => guardedArgumentProblems(schema(), { s: "a".repeat(i + 1) }));
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 30 }, () => []));
  });
});
