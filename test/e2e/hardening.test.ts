import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { withoutPermissionOverride } from "../helpers/processes.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { SOURCE_ENTRY } from "../helpers/server.ts";

/**
 * One regression test per hostile input of the hardening issue whose symptom is on the wire,
 * each against the source entry and the compiled binary: the server answers, promptly and
 * correctly, and keeps serving everything else.
 */
const CONFIG = "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 10 }\n";
const TOOL = (id: string, schema: string) =>
  `id: ${id}\ndescription: The ${id} tool\ntype: tool\ninputSchema: ${schema}\n`;

let fixture: Fixture | undefined;
let client: RawClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  fixture?.cleanup();
  fixture = undefined;
});

const isRoot = process.getuid?.() === 0;

type Target = { name: string; command: () => Promise<string[]> };
const TARGETS: Target[] = [
  { name: "source", command: async () => [process.execPath, SOURCE_ENTRY, "mcp"] },
  { name: "binary", command: async () => [await buildForTests(), "mcp"] },
];

async function start(
  target: Target,
  files: Record<string, string>,
  options: { permissionsApply?: boolean; setup?: (f: Fixture) => void } = {},
): Promise<RawClient> {
  fixture = makeFixture({ "skill-central.yaml": CONFIG, ...files });
  options.setup?.(fixture);
  let command = await target.command();
  if (options.permissionsApply && isRoot) command = withoutPermissionOverride(command);
  client = RawClient.spawn(command, { cwd: fixture.cwd, env: { HOME: fixture.home, PATH: process.env.PATH ?? "" } });
  await client.initialize();
  return client;
}

const names = (answer: { result?: Record<string, unknown> }, key: "tools" | "prompts") =>
  ((answer.result?.[key] as { name: string }[] | undefined) ?? [])
    .map((t) => t.name)
    .filter((n) => n !== "skills:compose");

function deepSchema(levels: number): string {
  let schema = "{type: object}";
  for (let i = 0; i < levels; i++) schema = `{allOf: [${schema}]}`;
  return schema;
}

for (const target of TARGETS) {
  describe(`hardening (${target.name})`, () => {
    test("1. a schema nested 2,000 levels is one file's error; the rest loads, and fixing the file recovers", async () => {
      const c = await start(target, {
        "skills/deep.yaml": TOOL("deep", deepSchema(2000)),
        "skills/ok.yaml": TOOL("ok", "{type: object}"),
      });
      expect(names(await c.request("tools/list"), "tools")).toEqual(["ok"]);
      expect(c.stderr()).toMatch(
        /skills\/deep\.yaml:4:1: error: skipped: "inputSchema" nests more than 64 levels deep/,
      );
      fixture!.write("skills/deep.yaml", TOOL("deep", "{type: object}"));
      await c.waitFor((m) => m.method === "notifications/tools/list_changed", 10_000, "tools/list_changed");
      expect(names(await c.request("tools/list"), "tools")).toEqual(["deep", "ok"]);
    });

    test("2. a folder nobody may read is a warning; requests are answered, and the server recovers when it opens", async () => {
      const c = await start(
        target,
        { "skills/ok.yaml": promptSkill("ok"), "skills/locked/hidden.yaml": promptSkill("hidden") },
        {
          permissionsApply: true,
          setup: (f) => chmodSync(join(f.cwd, "skills", "locked"), 0o000),
        },
      );
      expect(names(await c.request("prompts/list"), "prompts")).toEqual(["ok"]);
      expect(c.stderr()).toMatch(/skills\/locked: warning: cannot read this folder: permission denied \(EACCES\)/);
      chmodSync(join(fixture!.cwd, "skills", "locked"), 0o755);
      // A permission change is not a content change every watcher reports: touch the layer too.
      fixture!.write("skills/ok.yaml", promptSkill("ok", { description: "touched" }));
      await c.waitFor((m) => m.method === "notifications/prompts/list_changed", 10_000, "prompts/list_changed");
      expect(names(await c.request("prompts/list"), "prompts")).toEqual(["hidden", "ok"]);
    });

    test("3. a path longer than PATH_MAX inside a layer is a warning; everything else is served", async () => {
      const c = await start(
        target,
        { "skills/ok.yaml": promptSkill("ok") },
        {
          setup: (f) => {
            // 20 folders of 250 characters, made one relative step at a time (an absolute path
            // that long is refused): over Linux's 4,096-byte PATH_MAX, with a skill at the bottom.
            const name = "d".repeat(250);
            const script = `cd skills && for i in $(seq 20); do mkdir ${name} && cd ${name}; done && printf 'id: lost\\ndescription: d\\ntype: prompt\\nprompt: p\\n' > lost.yaml`;
            expect(Bun.spawnSync(["bash", "-c", script], { cwd: f.cwd }).exitCode).toBe(0);
          },
        },
      );
      expect(names(await c.request("prompts/list"), "prompts")).toEqual(["ok"]);
      expect(c.stderr()).toMatch(/the path is too long \(ENAMETOOLONG\)/);
    });

    test("4. a skill whose schema nests 10,000 levels is never served, and reading it answers at once", async () => {
      const c = await start(target, {
        "skills/huge.yaml": TOOL("huge", deepSchema(10_000)),
        "skills/ok.yaml": TOOL("ok", "{type: object}"),
      });
      const answer = await c.request("resources/read", { uri: "skill-central://skills/huge" });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toContain("Unknown resource");
    });

    test("6. a pattern that backtracks catastrophically costs its call 100 ms at most, and nothing else", async () => {
      const c = await start(target, {
        "skills/bad.yaml":
          'id: bad\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties: { s: { type: string, pattern: "^(a+)+$" } }\nprompt: "ok {{s}}"\n',
        "skills/good.yaml":
          'id: good\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties: { s: { type: string, pattern: "^[a-z]+(-[a-z]+)*$" } }\nprompt: "ok {{s}}"\n',
      });
      const slow = c.request("tools/call", { name: "bad", arguments: { s: `${"a".repeat(30)}!` } });
      // Sent after the slow call, answered before it: the server kept answering while it ran.
      const list = await c.request("tools/list");
      const refused = await slow;
      expect(names(list, "tools")).toEqual(["bad", "good"]);
      const order = c.received().map((m) => m.id);
      expect(order.indexOf(list.id)).toBeLessThan(order.indexOf(refused.id));
      expect(refused.error?.message).toStartWith(
        "Checking the arguments took over 100 ms (the limit): a pattern in the tool's inputSchema backtracks too much",
      );
      // The same tool still answers inputs that do not trigger the backtracking, and proven-safe patterns are checked as usual.
      const fine = await c.request("tools/call", { name: "bad", arguments: { s: "aaa" } });
      expect((fine.result!.content as { text: string }[])[0]!.text).toBe("ok aaa");
      const wrong = await c.request("tools/call", { name: "good", arguments: { s: "Not-Valid" } });
      expect((wrong.result!.content as { text: string }[])[0]!.text).toBe(
        'Argument "s" must match the pattern ^[a-z]+(-[a-z]+)*$',
      );
    });

    test("7. an echoed argument nested deeper than the limit is refused, naming it, in a small reply", async () => {
      const c = await start(target, {
        "skills/echo.yaml": "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object }\n",
      });
      let nested: unknown = "x";
      for (let i = 0; i < 2000; i++) nested = [nested];
      const answer = await c.request("tools/call", { name: "echo", arguments: { nested } });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toBe("Arguments nest more than 32 levels deep (the limit)");
      // Within the limit, the echo is linear in the argument.
      let ok: unknown = "y".repeat(20_000);
      for (let i = 0; i < 30; i++) ok = [ok];
      const fine = await c.request("tools/call", { name: "echo", arguments: { ok } });
      const text = (fine.result!.content as { text: string }[])[0]!.text;
      expect(text.length).toBeLessThan(25_000 + 30 * 70);
      expect(c.longestLine).toBeLessThan(100_000);
    });

    test("7. a completion value of 15 MB is refused in a small reply; an error never quotes a huge name twice", async () => {
      const c = await start(target, { "skills/p.yaml": promptSkill("p", { tags: "[a, b]" }) });
      const tags = "a,".repeat(7_500_000);
      const completion = await c.request(
        "completion/complete",
        { ref: { type: "ref/prompt", name: "skills:compose" }, argument: { name: "tags", value: tags } },
        30_000,
      );
      expect(completion.error?.message).toBe(
        "The value to complete is 15000000 characters, over the 1024-character limit",
      );
      const uri = `skill-central://skills/${"z".repeat(1_000_000)}`;
      const read = await c.request("resources/read", { uri });
      expect(read.error?.code).toBe(-32602);
      expect(read.error!.message.length).toBeLessThan(500);
      expect(c.longestLine).toBeLessThan(100_000);
    });

    test("10. a folder linked into itself loads every skill once, with a warning for the loop", async () => {
      const c = await start(
        target,
        { "skills/a.yaml": promptSkill("a"), "skills/sub/b.yaml": promptSkill("b") },
        {
          setup: (f) => symlinkSync(join(f.cwd, "skills"), join(f.cwd, "skills", "sub", "again")),
        },
      );
      expect(names(await c.request("prompts/list"), "prompts")).toEqual(["a", "b"]);
      expect(c.stderr()).toMatch(/skills\/sub\/again: warning: link not followed: it loops back to/);
      expect(c.stderr()).not.toContain("defined 2 times");
    });

    test("11. a $ref back to the schema itself is refused at load with its position, not at every call", async () => {
      const c = await start(target, {
        "skills/loop.yaml": 'id: loop\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  $ref: "#"\n',
        "skills/pair.yaml":
          "id: pair\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties: { a: { $ref: '#/$defs/a' } }\n  $defs:\n    a: { $ref: '#/$defs/b' }\n    b: { $ref: '#/$defs/a' }\n",
        "skills/tree.yaml":
          "id: tree\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    children: { type: array, items: { $ref: '#' } }\n",
      });
      expect(names(await c.request("tools/list"), "tools")).toEqual(["tree"]);
      expect(c.stderr()).toMatch(
        /skills\/loop\.yaml:6:\d+: error: skipped: invalid inputSchema: \$ref "#" leads back to itself/,
      );
      expect(c.stderr()).toMatch(
        /skills\/pair\.yaml:9:\d+: error: skipped: invalid inputSchema: \$ref "#\/\$defs\/a" leads back to itself/,
      );
      const call = await c.request("tools/call", { name: "tree", arguments: { children: [{ children: [] }] } });
      expect(call.result?.isError).toBeUndefined();
    });

    test("found by the fuzzer: templates reading ../ or this, a section named helperMissing, and a 20,000-value enum answer, not -32603", async () => {
      const values = Array.from({ length: 20_000 }, (_, i) => `e${i}`).join(", ");
      const c = await start(target, {
        "skills/each.yaml":
          'id: each\ndescription: d\ntype: tool\ninputSchema: { type: object }\nprompt: "{{#each items}}{{../prefix}}{{this}};{{/each}} {{#helperMissing}}x{{/helperMissing}}"\n',
        "skills/self.yaml": 'id: self\ndescription: d\ntype: prompt\nprompt: "[{{this}}]"\n',
        "skills/wide.yaml": `id: wide\ndescription: d\ntype: tool\ninputSchema: { type: object, properties: { s: { type: string, enum: [${values}] } } }\nprompt: "s={{s}}"\n`,
      });
      const each = await c.request("tools/call", { name: "each", arguments: { items: ["a", "b"], prefix: "-" } });
      expect((each.result!.content as { text: string }[])[0]!.text).toBe("-a;-b;");
      const self = await c.request("prompts/get", { name: "self", arguments: {} });
      expect((self.result!.messages as { content: { text: string } }[])[0]!.content.text).toBe("[[object Object]]");
      const wide = await c.request("tools/call", { name: "wide", arguments: { s: "e19999" } });
      expect((wide.result!.content as { text: string }[])[0]!.text).toBe("s=e19999");
      const refused = await c.request("tools/call", { name: "wide", arguments: { s: "nope" } });
      expect(refused.result?.isError).toBe(true);
    });

    test("a template whose #each blocks multiply is refused at the block limit, promptly, and the server answers on", async () => {
      const c = await start(target, {
        "skills/nested.yaml":
          'id: nested\ndescription: d\ntype: tool\ninputSchema: { type: object }\nprompt: "{{#each a}}{{#each ../a}}{{#each ../../a}}{{#each ../../../a}}x{{/each}}{{/each}}{{/each}}{{/each}}"\n',
      });
      const a = Array.from({ length: 100 }, (_, i) => `item ${i}`);
      const refused = await c.request("tools/call", { name: "nested", arguments: { a } });
      expect(refused.error).toEqual({
        code: -32602,
        message:
          "The template renders more than 250000 block bodies for these arguments (the limit): {{#each}} inside {{#each}} multiplies them; pass fewer items",
      });
      const small = await c.request("tools/call", { name: "nested", arguments: { a: ["p", "q"] } });
      expect((small.result!.content as { text: string }[])[0]!.text).toMatch(/^x+$/);
      expect((await c.request("tools/list")).result).toBeDefined();
    });

    test("12. arguments named __proto__, constructor or toString are plain names", async () => {
      const c = await start(target, {
        "skills/proto.yaml":
          'id: proto\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties: { constructor: { type: string }, toString: { type: string } }\n  required: [constructor]\nprompt: "c={{constructor}} t={{toString}}"\n',
        "skills/named.yaml":
          'id: named\ndescription: d\ntype: prompt\narguments:\n  - { name: constructor, required: true }\nprompt: "{{constructor}}"\n',
        "skills/echo.yaml": "id: echo\ndescription: d\ntype: tool\ninputSchema: { type: object }\n",
      });
      const missing = await c.request("tools/call", { name: "proto", arguments: {} });
      expect((missing.result!.content as { text: string }[])[0]!.text).toBe('Missing required argument: "constructor"');
      const given = await c.request("tools/call", { name: "proto", arguments: { constructor: "a", toString: "b" } });
      expect((given.result!.content as { text: string }[])[0]!.text).toBe("c=a t=b");
      const prompt = await c.request("prompts/get", { name: "named", arguments: {} });
      expect(prompt.error?.message).toBe('Missing required argument: "constructor"');
      c.send(
        '{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"polluted":true}}}}',
      );
      const echoed = await c.waitFor((m) => m.id === "p");
      // Whatever a JSON layer makes of the key, it never reaches a prototype the server shares.
      expect(echoed.result?.isError).toBeUndefined();
      const again = await c.request("tools/call", { name: "proto", arguments: {} });
      expect((again.result!.content as { text: string }[])[0]!.text).toBe('Missing required argument: "constructor"');
    });
  });
}

describe("hardening: changes while loading (source)", () => {
  test("9. a skill file created while the first load runs is served without touching it again", async () => {
    const files: Record<string, string> = {};
    // Enough files that the first load takes a while and yields between slices.
    for (let i = 0; i < 3000; i++) files[`skills/s${i}.yaml`] = promptSkill(`s${i}`);
    const c = await start(TARGETS[0]!, files);
    fixture!.write("skills/late.yaml", promptSkill("late"));
    // Until it is served, however long a busy machine takes (this test's timeout bounds it).
    let listed: string[] = [];
    while (!listed.includes("late")) {
      listed = names(await c.request("prompts/list", {}, 60_000), "prompts");
      if (!listed.includes("late")) await Bun.sleep(100);
    }
    expect(listed).toHaveLength(3001);
  }, 120_000);

  test("8. a config file made invalid mid-session keeps its last good layers", async () => {
    const c = await start(TARGETS[0]!, { "skills/a.yaml": promptSkill("a") });
    expect(names(await c.request("prompts/list"), "prompts")).toEqual(["a"]);
    fixture!.write("skill-central.yaml", "layers: [\n");
    // Until the warning is on stderr, however long a busy machine takes (this test's timeout bounds it).
    while (!/config not reloaded, still using its last good version/.test(c.stderr())) await Bun.sleep(50);
    expect(c.stderr()).toMatch(
      /skill-central\.yaml:\d+:\d+: warning: config not reloaded, still using its last good version: invalid YAML/,
    );
    expect(names(await c.request("prompts/list"), "prompts")).toEqual(["a"]);
  });
});
