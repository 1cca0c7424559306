import { afterEach, describe, expect, test } from "bun:test";
import { loadSkills } from "../../src/load/load-skills.ts";
import { loadReport } from "../../src/load/report.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function load(files: Record<string, string>) {
  fixture = makeFixture({
    "skill-central.yaml": "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 10 }\n",
    ...files,
  });
  const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
  return { ...result, ids: result.registry.resolutions().map((r) => r.id), lines: loadReport(result) };
}

describe("discovery", () => {
  test("YAML, YML and JSON files load from any depth", async () => {
    const { ids } = await load({
      "skills/a.yaml": promptSkill("a"),
      "skills/deep/er/b.yml": promptSkill("b"),
      "skills/c.json": JSON.stringify({ id: "c", description: "c", type: "prompt", prompt: "c" }),
      "skills/notes.md": "id: nope",
    });
    expect(ids).toEqual(["a", "b", "c"]);
  });

  test("names starting with _ or . are ignored, as files and as folders", async () => {
    const { ids, diagnostics } = await load({
      "skills/_template.yaml": promptSkill("template"),
      "skills/.hidden.yaml": promptSkill("hidden"),
      "skills/_drafts/d.yaml": promptSkill("draft"),
      "skills/.git/e.yaml": promptSkill("git"),
      "skills/ok.yaml": promptSkill("ok"),
    });
    expect(ids).toEqual(["ok"]);
    expect(diagnostics).toEqual([]);
  });

  test("a file over 1 MiB is skipped with a warning", async () => {
    const { ids, lines } = await load({
      "skills/big.yaml": promptSkill("big", { prompt: `"${"x".repeat(1024 * 1024)}"` }),
      "skills/ok.yaml": promptSkill("ok"),
    });
    expect(ids).toEqual(["ok"]);
    expect(lines).toEqual([
      expect.stringMatching(/^skills\/big\.yaml: error: skipped: \d+ bytes is over the 1 MiB limit/),
    ]);
  });

  test("a missing layer folder is a warning, not a failure", async () => {
    fixture = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: gone, path: ./nowhere, priority: 1 }\n",
    });
    const { diagnostics } = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(diagnostics[0]!.message).toContain('layer "gone"');
    expect(diagnostics[0]!.message).toContain("the folder nowhere does not exist");
    // At the layer's declaration: the folder is named in the message, not put where a file belongs.
    expect(diagnostics[0]!.file).toBe(`${fixture.cwd}/skill-central.yaml`);
    expect(diagnostics[0]!.position).toEqual({ line: 3, column: 25 });
  });
});

describe("broken files are skipped with one warning naming file, line and column", () => {
  test("bad YAML", async () => {
    const { ids, lines } = await load({
      "skills/bad.yaml": "id: bad\ndescription: [unclosed\ntype: prompt\n",
      "skills/ok.yaml": promptSkill("ok"),
    });
    expect(ids).toEqual(["ok"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^skills\/bad\.yaml:\d+:\d+: error: skipped: invalid YAML/);
  });

  test("a duplicate key is an error, not last-one-wins", async () => {
    const { ids, lines } = await load({
      "skills/dup.yaml": "id: first\ndescription: d\ntype: prompt\nprompt: p\nid: second\n",
    });
    expect(ids).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^skills\/dup\.yaml:5:1: error: skipped: duplicate key/)]);
  });

  test("a wrong field type names the field and its line", async () => {
    const { lines } = await load({
      "skills/t.yaml": "id: t\ndescription: d\ntype: prompt\nprompt: p\narguments: yes\n",
    });
    expect(lines).toEqual([
      expect.stringMatching(/^skills\/t\.yaml:5:\d+: error: skipped: "arguments" must be a list, not text/),
    ]);
  });

  test("a missing required field says which", async () => {
    const { lines } = await load({ "skills/m.yaml": "id: m\ntype: prompt\nprompt: p\n" });
    expect(lines[0]).toContain('"description" is missing');
  });

  test("an invalid type value is reported", async () => {
    const { lines } = await load({ "skills/ty.yaml": "id: ty\ndescription: d\ntype: macro\nprompt: p\n" });
    expect(lines[0]).toMatch(/^skills\/ty\.yaml:3:\d+: error: skipped: "type" must be prompt or tool, not "macro"/);
  });

  test("a bad id explains the rule", async () => {
    const { lines } = await load({
      "skills/i.yaml": "id: Bad_Id\ndescription: d\ntype: prompt\nprompt: p\n",
      "skills/long.yaml": promptSkill("a".repeat(65)),
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^skills\/i\.yaml:1:5: error: skipped: id "Bad_Id" is not valid — use lowercase letters/);
    expect(lines[1]).toContain("at most 64 characters");
  });

  test("a prompt skill without a template", async () => {
    const { lines } = await load({ "skills/n.yaml": "id: n\ndescription: d\ntype: prompt\n" });
    expect(lines[0]).toContain('a prompt skill needs a "prompt" template');
  });

  test("an unparsable template points into the block scalar", async () => {
    const { lines } = await load({
      "skills/tpl.yaml": "id: tpl\ndescription: d\ntype: prompt\nprompt: |\n  line one\n  {{#if x}}never closed\n",
    });
    expect(lines).toEqual([
      "skills/tpl.yaml:6:3: error: skipped: template does not parse: {{#if}} is never closed — add {{/if}} where the block ends",
    ]);
  });

  test("a template using an unknown helper is rejected with its position", async () => {
    const { lines } = await load({
      "skills/h.yaml": "id: h\ndescription: d\ntype: prompt\nprompt: |\n  ok\n  see {{uppercase name}}\n",
    });
    expect(lines).toEqual([
      'skills/h.yaml:6:7: error: skipped: unknown helper "uppercase" — only #if, #unless, #each and #with exist; put the text itself in the template',
    ]);
  });

  test("an invalid inputSchema is rejected, naming the bad keyword", async () => {
    const { ids, lines } = await load({
      "skills/s.yaml":
        "id: s\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    a: { type: strnig }\n",
    });
    expect(ids).toEqual([]);
    expect(lines[0]).toMatch(
      /^skills\/s\.yaml:7:16: error: skipped: invalid inputSchema: inputSchema\.properties\.a\.type/,
    );
  });

  test("an inputSchema with an unresolvable $ref is rejected", async () => {
    const { lines } = await load({
      "skills/r.yaml":
        "id: r\ndescription: d\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    a: { $ref: '#/$defs/nope' }\n",
    });
    expect(lines[0]).toContain('$ref "#/$defs/nope" does not resolve');
  });

  test("several problems in one file still make one warning, listing them all", async () => {
    const { lines } = await load({ "skills/x.yaml": "id: X\ndescription: d\ntype: prompt\nprompt: '{{> partial}}'\n" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('id "X" is not valid');
    expect(lines[0]).toContain("also: partials");
  });

  test("unknown fields are a warning; the skill still loads", async () => {
    const { ids, lines } = await load({ "skills/u.yaml": promptSkill("u", { tag: "typo" }) });
    expect(ids).toEqual(["u"]);
    expect(lines).toEqual([expect.stringMatching(/^skills\/u\.yaml:5:1: warning: unknown field "tag" is ignored/)]);
  });

  // CPU-heavy (a 20,000-key file): its own timeout, with room for a busy machine.
  test("findings of one kind are listed ten at a time per file, then counted in one line (a 20,000-key file once stalled the load for seconds)", async () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}`).join("\n");
    const variables = Array.from({ length: 50 }, (_, i) => `{{v${i}}}`).join(" ");
    const { ids, lines } = await load({
      "skills/many.yaml": `id: many\ndescription: d\ntype: prompt\narguments: [{ name: x }]\nprompt: "${variables} {{x}}"\n${keys}\n`,
    });
    expect(ids).toEqual(["many"]);
    // One line for the file: its first finding with its position, then the rest in brief, the counts last.
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatch(/^skills\/many\.yaml:5:\d+: warning: the template reads \{\{v0\}\}/);
    expect(line.match(/unknown field "k\d+" is ignored/g)).toHaveLength(10);
    expect(line.match(/the template reads \{\{v\d+\}\}/g)).toHaveLength(10);
    expect(line).toEndWith(
      "19990 more warnings of this kind (unknown-field) are not listed; 20000 in all; 40 more warnings of this kind (undeclared-variable) are not listed; 50 in all",
    );
  }, 60_000);

  test("a file that is not a mapping", async () => {
    const { lines } = await load({ "skills/list.yaml": "- a\n- b\n" });
    expect(lines[0]).toContain("must be a mapping");
  });
});

describe("normalisation", () => {
  test("tags: a single string is one tag; trimmed, lowercased, de-duplicated", async () => {
    const { registry } = await load({
      "skills/a.yaml": promptSkill("a", { tags: "Kotlin " }),
      "skills/b.yaml": promptSkill("b", { tags: "[ ' KMP', kmp, Android ]" }),
    });
    expect(registry.get("a")!.skill.tags).toEqual(["kotlin"]);
    expect(registry.get("b")!.skill.tags).toEqual(["kmp", "android"]);
  });

  test("a prompt without arguments lists its template's variables as optional arguments", async () => {
    const { registry } = await load({
      "skills/v.yaml": promptSkill("v", {
        prompt: "'{{topic}} {{#if depth}}{{depth}}{{/if}} {{#each items}}{{name}}{{/each}}'",
      }),
    });
    expect(registry.get("v")!.skill.arguments).toEqual([
      { name: "topic", required: false },
      { name: "depth", required: false },
      { name: "items", required: false },
    ]);
  });

  test("a tool without inputSchema gets one derived from its arguments", async () => {
    const { registry } = await load({
      "skills/t.yaml":
        "id: t\ndescription: d\ntype: tool\narguments:\n  - { name: a, description: first, required: true }\n  - { name: b }\nprompt: '{{a}}{{b}}'\n",
    });
    expect(registry.get("t")!.skill.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "first" }, b: { type: "string" } },
      required: ["a"],
    });
  });
});
