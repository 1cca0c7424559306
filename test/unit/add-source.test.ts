import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAddSource } from "../../src/commands/support/add-source.ts";
import { declaredLayers, withLayer, withoutLayer } from "../../src/commands/support/layers-edit.ts";

const cwd = mkdtempSync(join(tmpdir(), "sc-add-source-"));
mkdirSync(join(cwd, "vendor", "skills"), { recursive: true });
mkdirSync(join(cwd, "local"), { recursive: true });
mkdirSync(join(cwd, "acme", "both"), { recursive: true });
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const read = (text: string) => readAddSource(text, cwd, "/home/me");

describe("add SOURCE forms", () => {
  test("owner/repo is GitHub over https, named after the repository", () => {
    expect(read("anthropics/skills")).toEqual({
      kind: "git",
      url: "https://github.com/anthropics/skills.git",
      name: "skills",
    });
  });

  test("owner/repo/path@ref takes the folder and the ref", () => {
    expect(read("acme/Team_Skills/tools/review@v2.1")).toEqual({
      kind: "git",
      url: "https://github.com/acme/Team_Skills.git",
      path: "tools/review",
      ref: "v2.1",
      name: "team-skills",
    });
  });

  test("owner/repo that is also a folder here is refused as ambiguous", () => {
    expect(() => read("acme/both")).toThrow('"acme/both" is both a folder here and GitHub\'s acme/both');
  });

  test("./, ../, / and ~ are folders; relative ones are written ./ from the project", () => {
    expect(read("./vendor/skills")).toMatchObject({ kind: "path", path: "./vendor/skills", name: "skills" });
    expect(read(join(cwd, "vendor"))).toMatchObject({ kind: "path", path: "./vendor", name: "vendor" });
    expect(() => read("./missing")).toThrow('"./missing" is not a folder');
    expect(() => read("~/nowhere-at-all")).toThrow('"~/nowhere-at-all" is not a folder');
  });

  test("a bare name is a folder that must exist", () => {
    expect(read("local")).toMatchObject({ kind: "path", path: "./local" });
    expect(() => read("nothing")).toThrow("is not a folder here, a git URL, an https:// index or owner/repo");
  });

  test("ssh, git, file and scp-like URLs are git repositories", () => {
    expect(read("git@github.com:acme/skills.git")).toMatchObject({ kind: "git", name: "skills" });
    expect(read("ssh://git@host/team/x.git")).toMatchObject({ kind: "git", name: "x" });
    expect(read("file:///srv/repos/prompts.git")).toMatchObject({ kind: "git", name: "prompts" });
  });

  test("https: an origin is its well-known index, a .well-known or index.json URL an index, any other path git", () => {
    expect(read("https://www.example.com")).toEqual({
      kind: "well-known",
      url: "https://www.example.com/.well-known/agent-skills/",
      name: "example-com",
    });
    expect(read("https://example.com/.well-known/agent-skills/v1.2.0/")).toMatchObject({ kind: "well-known" });
    expect(read("https://example.com/skills/index.json")).toMatchObject({ kind: "well-known" });
    expect(read("https://gitlab.com/team/shared-skills")).toEqual({
      kind: "git",
      url: "https://gitlab.com/team/shared-skills",
      name: "shared-skills",
    });
  });
});

const FILE = `# head
layers:
    -   name: a          # odd indentation
        path: ./a
        priority: 5
    - { name: b, path: "./b", priority: 7 }   # flow entry
tail: 1
`;

describe("layers: edited in place", () => {
  test("an entry goes after the last, at the list's own indentation; the rest byte for byte", () => {
    const out = withLayer(FILE, { name: "c", priority: 17, git: "https://x/y.git" });
    expect(out).toBe(FILE.replace("tail: 1", "    - name: c\n      priority: 17\n      git: https://x/y.git\ntail: 1"));
    expect(declaredLayers(out).map((l) => l.name)).toEqual(["a", "b", "c"]);
  });

  test("values YAML would misread are quoted", () => {
    const out = withLayer("", { name: "odd: name", priority: 1, git: "https://x/y.git", ref: "#1" });
    expect(declaredLayers(out)[0]).toEqual({ name: "odd: name", priority: 1, git: "https://x/y.git", ref: "#1" });
  });

  test("a file without layers: gets one at its end, keeping a last line without a newline", () => {
    expect(withLayer("builtin: false", { name: "a", priority: 50, path: "./a" })).toBe(
      "builtin: false\nlayers:\n  - name: a\n    priority: 50\n    path: ./a\n",
    );
    expect(withLayer("layers:   # none yet\nbuiltin: false\n", { name: "a", priority: 50, path: "./a" })).toBe(
      "layers:   # none yet\n  - name: a\n    priority: 50\n    path: ./a\nbuiltin: false\n",
    );
  });

  test("a flow list is re-printed through the Document API, its comments kept", () => {
    const out = withLayer("# top\nlayers: [ { name: a, path: ./a } ] # inline\n", {
      name: "b",
      priority: 1,
      path: "./b",
    });
    expect(out).toContain("# top");
    expect(declaredLayers(out).map((l) => l.name)).toEqual(["a", "b"]);
  });

  test("removing an entry cuts its lines only; a flow entry on its own line too", () => {
    expect(withoutLayer(FILE, "b")).toBe(
      FILE.replace('    - { name: b, path: "./b", priority: 7 }   # flow entry\n', ""),
    );
    expect(withoutLayer(FILE, "zzz")).toBeUndefined();
  });

  test("a file that is not YAML is refused, not rewritten", () => {
    expect(() => withLayer("layers: [\n", { name: "a", priority: 1, path: "./a" })).toThrow("it is not valid YAML");
  });
});
