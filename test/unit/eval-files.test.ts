/**
 * A skill's eval files (src/storage/eval-files.ts): where they are for a folder and a skill file,
 * the field's formats read as they are (skill-creator's `expectations` as `assertions`), schema
 * and JSON errors placed at line:col, and that they are neither discovered as skills nor served.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { discoverSkillFiles } from "../../src/storage/discover.ts";
import {
  evalFileFindings,
  evalPathsOf,
  isEvalFileName,
  readEvalsFile,
  readTriggerSet,
} from "../../src/storage/eval-files.ts";
import { servedFolderFiles } from "../../src/storage/served-files.ts";

const root = mkdtempSync(join(tmpdir(), "eval-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("eval file names", () => {
  test("a folder skill's are evals/evals.json and evals/eval_set.json; a skill file's sit beside it, named after it", () => {
    expect(evalPathsOf("/l/greet/SKILL.md")).toEqual({
      evals: "/l/greet/evals/evals.json",
      triggers: "/l/greet/evals/eval_set.json",
    });
    expect(evalPathsOf("/l/greet.yaml")).toEqual({ evals: "/l/greet.evals.json", triggers: "/l/greet.eval_set.json" });
    expect(evalPathsOf("/l/greet.json")).toEqual({ evals: "/l/greet.evals.json", triggers: "/l/greet.eval_set.json" });
    expect(isEvalFileName("greet.eval_set.json")).toBe(true);
    expect(isEvalFileName("greet.evals.json")).toBe(true);
    expect(isEvalFileName("greet.json")).toBe(false);
  });

  test("a layer's greet.evals.json and greet.eval_set.json are not discovered as skills", () => {
    const layer = join(root, "layer");
    write("layer/greet.yaml", "id: greet\ndescription: Say hello\nprompt: Hi\n");
    write("layer/greet.evals.json", '{"skill_name":"greet","evals":[]}');
    write("layer/greet.eval_set.json", "[]");
    write("layer/other.json", "{}");
    expect(discoverSkillFiles(layer).files.map((f) => f.slice(layer.length + 1))).toEqual(["greet.yaml", "other.json"]);
  });

  test("a skill folder's evals/ is not served (nor audited: the gate judges the same list)", () => {
    const dir = join(root, "served", "greet");
    const skillMd = write("served/greet/SKILL.md", "---\nname: greet\ndescription: Say hello\n---\nHi\n");
    write("served/greet/evals/evals.json", '{"skill_name":"greet","evals":[]}');
    write("served/greet/evals/eval_set.json", "[]");
    write("served/greet/references/evals/notes.md", "kept: only the top-level evals/ is test data");
    expect(servedFolderFiles(dir, skillMd).names).toEqual(["SKILL.md", "references/evals/notes.md"]);
  });
});

describe("reading eval files", () => {
  test("a trigger set is read as {query, should_trigger} items, extra fields dropped; a missing file is undefined", () => {
    const path = write(
      "t1.json",
      JSON.stringify([
        { query: "say hi", should_trigger: true, note: "mine" },
        { query: "deploy", should_trigger: false },
      ]),
    );
    expect(readTriggerSet(path)).toEqual({
      value: [
        { query: "say hi", should_trigger: true },
        { query: "deploy", should_trigger: false },
      ],
      diagnostics: [],
    });
    expect(readTriggerSet(join(root, "absent.json"))).toBeUndefined();
  });

  test("evals.json: the guide's assertions, or skill-creator's expectations read as assertions", () => {
    const guide = write(
      "e1.json",
      JSON.stringify({
        skill_name: "greet",
        evals: [{ id: 1, prompt: "hi", expected_output: "hello", files: ["a.txt"], assertions: ["says hello"] }],
      }),
    );
    const creator = write(
      "e2.json",
      JSON.stringify({ skill_name: "greet", evals: [{ id: "x", prompt: "hi", expectations: ["says hello"] }] }),
    );
    expect(readEvalsFile(guide)?.value?.evals[0]).toEqual({
      id: 1,
      prompt: "hi",
      expected_output: "hello",
      files: ["a.txt"],
      assertions: ["says hello"],
    });
    expect(readEvalsFile(creator)?.value?.evals[0]).toEqual({ id: "x", prompt: "hi", assertions: ["says hello"] });
  });

  test("a schema error is placed at the value's line and column, and names its path", () => {
    const path = write(
      "bad-set.json",
      '[\n  {"query": "ok", "should_trigger": true},\n  {"query": "x", "should_trigger": "yes"}\n]\n',
    );
    const read = readTriggerSet(path);
    expect(read?.value).toBeUndefined();
    expect(read?.diagnostics.length).toBe(1);
    const [d] = read!.diagnostics;
    expect(d!.code).toBe("eval-schema");
    expect(d!.file).toBe(path);
    expect(d!.message).toStartWith("[1].should_trigger ");
    expect(d!.position).toEqual({ line: 3, column: 36 });
  });

  test("a missing required field is placed at the object that lacks it", () => {
    const path = write("bad-evals.json", '{\n  "skill_name": "greet",\n  "evals": [\n    {"id": 1}\n  ]\n}\n');
    const [d] = readEvalsFile(path)!.diagnostics;
    expect(d!.message).toContain("prompt");
    expect(d!.position).toEqual({ line: 4, column: 5 });
  });

  test("text that is not JSON is an eval-json error at where it goes wrong", () => {
    const path = write("broken.json", '[\n  {"query": "a", "should_trigger": true},\n]\n');
    const [d] = readTriggerSet(path)!.diagnostics;
    expect(d!.code).toBe("eval-json");
    expect(d!.position).toEqual({ line: 2, column: 41 });
  });

  test("evalFileFindings reports both files of a skill, and nothing when it has none", () => {
    const source = write("findings/greet.yaml", "id: greet\n");
    expect(evalFileFindings(source)).toEqual([]);
    write("findings/greet.eval_set.json", '[{"query": 3}]');
    write("findings/greet.evals.json", '{"evals": []}');
    expect(evalFileFindings(source).map((d) => d.file)).toEqual([
      join(root, "findings/greet.evals.json"),
      join(root, "findings/greet.eval_set.json"),
      join(root, "findings/greet.eval_set.json"),
    ]);
  });

  test("evals.json: a skill_name other than the skill's id, and a listed file that is missing or outside the folder, are warnings at their place", () => {
    const skillMd = write("warn/greet/SKILL.md", "---\nname: greet\ndescription: Say hello\n---\nHi\n");
    write("warn/greet/evals/files/in.csv", "a,b\n");
    write(
      "warn/greet/evals/evals.json",
      '{\n  "skill_name": "greeter",\n  "evals": [\n    {"id": 1, "prompt": "hi", "files": ["evals/files/in.csv", "evals/files/gone.csv", "../../x"]}\n  ]\n}\n',
    );
    const found = evalFileFindings(skillMd, "greet");
    expect(found.map((d) => [d.severity, d.code, d.position?.line, d.position?.column])).toEqual([
      ["warning", "eval-skill-name", 2, 17],
      ["warning", "eval-file-missing", 4, 63],
      ["warning", "eval-file-missing", 4, 87],
    ]);
    expect(found[1]!.message).toContain('no file "evals/files/gone.csv"');
    expect(found[2]!.message).toContain("outside the skill's folder");
    expect(evalFileFindings(skillMd)).toHaveLength(2);
  });
});
