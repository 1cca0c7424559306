import { afterEach, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

/**
 * The `layers:` of a config file (src/config/read-layers.ts): one schema per entry, then the rules
 * between keys. Folder and git specifics are in config-git-layers.test.ts, visibleTo in
 * layer-access.test.ts; here, url layers and what any layer is dropped for.
 */
let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function project(...lines: string[]) {
  fixture = makeFixture({ "skill-central.yaml": `${lines.join("\n")}\n` });
  const resolved = await resolvedConfig(fixture, { builtin: false });
  return {
    ...resolved,
    found: resolved.diagnostics.map((d) => [d.position?.line, d.severity, d.message]),
    names: resolved.config.layers.map((l) => l.name),
  };
}

/**
 * A file of these entries, each followed by the problem (an error, on its line) that drops it, then
 * a good layer `ok` written first: only `ok` is loaded.
 */
async function eachDropped(cases: [entry: string, message: string][]) {
  const read = await project("layers:", "  - { name: ok, path: ./ok, priority: 1 }", ...cases.map(([e]) => `  - ${e}`));
  expect(read.found).toEqual(cases.map(([, message], i) => [i + 3, "error", message]));
  expect(read.names).toEqual(["ok"]);
  return read;
}

describe("url layers in the config", () => {
  test("url, skills and tokenEnv are read: the index URL ends in index.json, skills sorted once each", async () => {
    const { config, diagnostics } = await project(
      "layers:",
      "  - { name: vendor, priority: 30, url: ' https://example.com/.well-known/agent-skills ', skills: [pdf, code-review, pdf], tokenEnv: VENDOR_TOKEN }",
      "  - { name: pinned, priority: 20, url: https://example.com/v1.2.0/index.json }",
    );
    expect(diagnostics).toEqual([]);
    expect(config.layers.map((l) => [l.name, l.source])).toEqual([
      [
        "vendor",
        {
          kind: "well-known",
          url: "https://example.com/.well-known/agent-skills/index.json",
          skills: ["code-review", "pdf"],
          tokenEnv: "VENDOR_TOKEN",
        },
      ],
      ["pinned", { kind: "well-known", url: "https://example.com/v1.2.0/index.json" }],
    ]);
  });

  test("a bad url, skills or tokenEnv drops the layer with an error at its key; the URL is never echoed", async () => {
    const { messages } = await eachDropped([
      [
        "{ name: a, priority: 1, url: 'ftp://user:s3cret@example.com/' }",
        'layer "a": "url" must be an http:// or https:// URL (other schemes are refused); layer ignored',
      ],
      ["{ name: b, priority: 1, url: 'http://[nope/' }", 'layer "b": "url" is not a valid URL; layer ignored'],
      [
        "{ name: c, priority: 1, url: 42 }",
        'layer "c": "url" must be a well-known index URL (a string); layer ignored',
      ],
      [
        "{ name: d, priority: 1, url: https://x/, skills: [pdf, Not-A-Name] }",
        'layer "d": "skills" must be a list of skill names (lowercase, digits, hyphens); layer ignored',
      ],
      [
        "{ name: e, priority: 1, url: https://x/, tokenEnv: 1TOKEN }",
        'layer "e": "tokenEnv" must name an environment variable (letters, digits, _); layer ignored',
      ],
      ["{ name: f, priority: 1, url: https://x/, path: ./f }", 'layer "f" has "url" and "path": give one'],
      ["{ name: g, priority: 1, url: https://x/, git: https://x/y.git }", 'layer "g" has "url" and "git": give one'],
    ]);
    expect(messages.join("\n")).not.toContain("s3cret");
  });

  test("a key a layer does not take is ignored with a warning whatever its value; the layer is kept", async () => {
    const { found, names } = await project(
      "layers:",
      "  - { name: team, priority: 1, git: https://x/y.git, skills: [pdf] }",
      "  - { name: mine, priority: 2, path: ./mine, tokenEnv: TOKEN }",
      // A wrong value under a key that does not apply does not drop the layer either.
      "  - { name: git2, priority: 3, git: https://x/z.git, skills: [NOT A NAME] }",
      "  - { name: own, priority: 4, path: ./own, signers: 42, ref: '' }",
      "  - { name: docs, priority: 5, url: https://example.com/, refresh: often }",
    );
    expect(found).toEqual([
      [2, "warning", 'layer "team": "skills" applies only to a layer with "url"; ignored'],
      [3, "warning", 'layer "mine": "tokenEnv" applies only to a layer with "url"; ignored'],
      [4, "warning", 'layer "git2": "skills" applies only to a layer with "url"; ignored'],
      [5, "warning", 'layer "own": "ref" applies only to a git layer (one with "git: <url>"); ignored'],
      [5, "warning", 'layer "own": "signers" applies only to a git or url layer; ignored'],
      [6, "warning", 'layer "docs": "refresh" applies only to a git layer (one with "git: <url>"); ignored'],
    ]);
    expect(names).toEqual(["team", "mine", "git2", "own", "docs"]);
  });
});

describe("what drops a layer", () => {
  test("each dropped layer is an error at the key at fault; the other layers of the file are kept", async () => {
    const needsSource =
      'needs a "path" (a folder), "git" (a repository URL) or "url" (a well-known index); layer ignored';
    await eachDropped([
      ["just-a-name", "layer 2 must be a mapping { name, path, priority }; ignored"],
      ["{ path: ./a, priority: 1 }", 'layer 3 needs "name"; ignored'],
      ["{ name: '  ', path: ./b, priority: 1 }", 'layer 4: "name" must be a name (a string); layer ignored'],
      ["{ name: c, path: ./c }", 'layer "c" needs "priority"; ignored'],
      ["{ name: d, priority: 1 }", `layer "d" ${needsSource}`],
      ["{ name: e, path: '', priority: 1 }", `layer "e" ${needsSource}`],
      [
        "{ name: f, path: 42, priority: 1 }",
        'layer "f": "path" must be a folder (a string; for a git layer, one inside the repository); layer ignored',
      ],
      ["{ name: ok, path: ./ok2, priority: 2 }", 'layer "ok" is declared twice in this file; the second is ignored'],
    ]);
  });

  test("an unknown key is a warning with a suggestion; the layer is kept", async () => {
    const { diagnostics, names } = await project(
      "layers:",
      "  - { name: team, path: ./t, priority: 1, visibleto: {} }",
    );
    expect(diagnostics.map((d) => [d.severity, d.message, d.hint])).toEqual([
      [
        "warning",
        'layer "team": unknown key "visibleto" is ignored (known keys: name, path, priority, git, ref, refresh, visibleTo, url, signers, revoked, skills, tokenEnv)',
        'did you mean "visibleTo"?',
      ],
    ]);
    expect(names).toEqual(["team"]);
  });

  test("layers that is not a list drops every layer of the file, as an error", async () => {
    const { found, names } = await project("layers: { name: team, path: ./t, priority: 1 }");
    expect(found).toEqual([
      [1, "error", '"layers" must be a list of { name, path, priority }; ignored, so no layer of this file is loaded'],
    ]);
    expect(names).toEqual([]);
  });

  test("a git layer's refresh: false is no background refresh; a numeric ref is read as its text", async () => {
    const { config, diagnostics } = await project(
      "layers:",
      "  - { name: team, priority: 1, git: https://x/y.git, ref: 2024, refresh: false }",
    );
    expect(diagnostics).toEqual([]);
    expect(config.layers[0]!.source).toEqual({ kind: "git", url: "https://x/y.git", ref: "2024", path: "" });
  });
});
