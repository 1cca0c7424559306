import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDuration, repoPathOrProblem } from "../../src/config/read-layers.ts";
import type { LayerSpec } from "../../src/config/resolve-config.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";
import { section } from "../helpers/markdown.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

/** A git layer's source; undefined for another kind. */
const gitOf = ({ source }: LayerSpec) => (source.kind === "git" ? source : undefined);

async function resolve(files: Record<string, string>) {
  fixture = makeFixture(files);
  return resolvedConfig(fixture, { builtin: false });
}

describe("git layers in the config files", () => {
  test("a project layer names a repository, a ref and a folder inside it", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml":
        "layers:\n  - { name: team, priority: 50, git: https://example.com/skills.git, ref: main, path: ./skills/team/ }\n",
    });
    expect(diagnostics).toEqual([]);
    expect(config.layers).toHaveLength(1);
    const [team] = config.layers;
    expect(team!.source).toEqual({
      kind: "git",
      url: "https://example.com/skills.git",
      ref: "main",
      path: "skills/team",
    });
    expect(team!.origin).toBe(join(fixture.cwd, "skill-central.yaml"));
  });

  test("a user layer may follow a branch with a background refresh; ref defaults to HEAD, path to the root", async () => {
    const { config, diagnostics } = await resolve({
      "~/.skill-central/config.yaml":
        "layers:\n  - name: mine\n    priority: 70\n    git: git@example.com:me/skills.git\n    refresh: 1h\n",
    });
    expect(diagnostics).toEqual([]);
    expect(config.layers[0]!.source).toEqual({
      kind: "git",
      url: "git@example.com:me/skills.git",
      ref: "HEAD",
      path: "",
      refreshMs: 3_600_000,
    });
  });

  test("a project git layer replaces a same-named user folder layer", async () => {
    const { config } = await resolve({
      "~/.skill-central/config.yaml": "layers:\n  - { name: team, path: ./team, priority: 10 }\n",
      "skill-central.yaml": "layers:\n  - { name: team, priority: 50, git: file:///srv/skills.git }\n",
    });
    expect(config.layers.map((l) => [l.name, l.priority, gitOf(l)?.url])).toEqual([
      ["team", 50, "file:///srv/skills.git"],
    ]);
  });

  test("ill-typed git keys are reported at their position; the layer is ignored when it cannot be fetched", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": [
        "layers:",
        "  - { name: a, priority: 1, git: 42 }",
        "  - { name: b, priority: 1, git: https://x/y.git, ref: ../evil }",
        "  - { name: c, priority: 1, git: https://x/y.git, path: ../../etc }",
        "  - { name: d, priority: 1, git: https://x/y.git, refresh: often }",
        "  - { name: e, priority: 1, git: https://x/y.git, refresh: 10s }",
        "  - { name: f, priority: 1, git: --upload-pack=touch }",
        "  - { name: g, priority: 1, path: ./g, ref: main }",
        "",
      ].join("\n"),
    });
    expect(diagnostics.map((d) => [d.position?.line, d.message])).toEqual([
      [2, 'layer "a": "git" must be a repository URL; layer ignored'],
      [3, 'layer "b": "ref" is not a valid branch, tag or commit name; layer ignored'],
      [4, 'layer "c": "path" must stay inside the repository (no ".." or ".git"); layer ignored'],
      [5, 'layer "d": "refresh" must be a duration like 30m, 1h or 1d (or false); ignored'],
      [6, 'layer "e": "refresh" must be at least 1m (a shared remote is not polled more often); ignored'],
      [7, 'layer "f": "git" must be a repository URL; layer ignored'],
      [8, 'layer "g": "ref" applies only to a git layer (one with "git: <url>"); ignored'],
    ]);
    // d and e keep their layer (only the refresh is dropped); g is a folder layer.
    expect(config.layers.map((l) => [l.name, gitOf(l)?.refreshMs])).toEqual([
      ["d", undefined],
      ["e", undefined],
      ["g", undefined],
    ]);
  });

  test("a git URL with credentials is never echoed in a config warning", async () => {
    const { messages } = await resolve({
      "skill-central.yaml":
        "layers:\n  - { name: t, priority: 1, git: 'https://user:s3cret-token@example.com/x.git', ref: 'a b' }\n",
    });
    expect(messages).toHaveLength(1);
    expect(messages.join("\n")).not.toContain("s3cret");
  });

  test("unknown layer keys name the git keys among the known ones", async () => {
    const { messages, diagnostics } = await resolve({
      "skill-central.yaml": "layers:\n  - { name: t, priority: 1, git: https://x/y.git, branch: main }\n",
    });
    expect(messages).toEqual([
      'layer "t": unknown key "branch" is ignored (known keys: name, path, priority, git, ref, refresh, visibleTo, url, signers, revoked, skills, tokenEnv)',
    ]);
    expect(diagnostics[0]!.severity).toBe("warning");
  });
});

describe("git layer key syntax", () => {
  test("durations", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration(" 2d ")).toBe(172_800_000);
    expect(parseDuration("1h30m")).toBeUndefined();
    expect(parseDuration("1")).toBeUndefined();
  });

  test("repository paths are normalised and kept inside the repository", () => {
    expect(repoPathOrProblem("./skills//team/")).toEqual({ path: "skills/team" });
    expect(repoPathOrProblem(".")).toEqual({ path: "" });
    expect(repoPathOrProblem("a/../b")).toHaveProperty("problem");
    expect(repoPathOrProblem("/etc")).toHaveProperty("problem");
    expect(repoPathOrProblem("x/.GIT/hooks")).toHaveProperty("problem");
  });
});

describe("the documented examples", () => {
  const REPO = join(import.meta.dir, "..", "..");
  const yamlBlocks = (file: string) =>
    [...readFileSync(join(REPO, file), "utf8").matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

  test("every git layer example in docs/git-layers.md and the README's team section is a valid config", async () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const team = section(readme, "## Sharing skills across a team");
    const blocks = [
      ...yamlBlocks("docs/git-layers.md"),
      ...[...team.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!),
    ];
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      const { config, diagnostics } = await resolve({ "skill-central.yaml": block });
      expect(diagnostics).toEqual([]);
      expect(config.layers.some((l) => l.source.kind === "git")).toBe(true);
    }
  });
});

/** The `signers` layer key (docs/provenance.md): git and url layers only, a path relative to its config file. */
describe("the signers key", () => {
  test("git and url layers take it, resolved against the folder of the config file naming it", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": [
        "layers:",
        "  - { name: team, priority: 50, git: https://example.com/skills.git, signers: keys/allowed_signers }",
        "  - { name: vendor, priority: 30, url: https://example.com/skills/, signers: vendor.allowed_signers }",
        "",
      ].join("\n"),
      "~/.skill-central/config.yaml":
        "layers:\n  - { name: mine, priority: 70, git: https://example.com/mine.git, signers: ~/trusted }\n",
    });
    expect(diagnostics).toEqual([]);
    const byName = Object.fromEntries(config.layers.map((l) => [l.name, l]));
    expect(gitOf(byName.team!)!.signers).toBe(join(fixture.cwd, "keys", "allowed_signers"));
    expect(byName.vendor!.source).toMatchObject({
      kind: "well-known",
      signers: join(fixture.cwd, "vendor.allowed_signers"),
    });
    expect(gitOf(byName.mine!)!.signers).toBe(join(fixture.home, "trusted"));
  });

  test("a bad value ignores the layer (never served unverified); on a folder layer it is ignored with a warning", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": [
        "layers:",
        "  - { name: a, priority: 1, git: https://x/y.git, signers: 42 }",
        "  - { name: b, priority: 1, url: https://x/y/, signers: '' }",
        "  - { name: c, priority: 1, path: ./c, signers: keys }",
        "",
      ].join("\n"),
    });
    expect(diagnostics.map((d) => [d.position?.line, d.message])).toEqual([
      [2, 'layer "a": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored'],
      [3, 'layer "b": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored'],
      [4, 'layer "c": "signers" applies only to a git or url layer; ignored'],
    ]);
    expect(diagnostics.map((d) => d.severity)).toEqual(["error", "error", "warning"]);
    expect(diagnostics[0]!.hint).toBe(
      "a layer with signers is never served unverified; e.g. signers: ./allowed_signers",
    );
    expect(config.layers.map((l) => l.name)).toEqual(["c"]);
  });

  test("revoked (a file of revoked public keys) goes with signers, resolved the same way; without signers it is ignored with a warning", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": [
        "layers:",
        "  - { name: team, priority: 50, git: https://example.com/skills.git, signers: allowed_signers, revoked: keys/revoked }",
        "  - { name: vendor, priority: 30, url: https://example.com/skills/, signers: s, revoked: r }",
        "  - { name: loose, priority: 20, git: https://example.com/loose.git, revoked: r }",
        "  - { name: c, priority: 1, path: ./c, revoked: r }",
        "",
      ].join("\n"),
    });
    const byName = Object.fromEntries(config.layers.map((l) => [l.name, l]));
    expect(gitOf(byName.team!)!.revoked).toBe(join(fixture.cwd, "keys", "revoked"));
    expect(byName.vendor!.source).toMatchObject({ kind: "well-known", revoked: join(fixture.cwd, "r") });
    expect(gitOf(byName.loose!)!.revoked).toBeUndefined();
    expect(diagnostics.map((d) => [d.position?.line, d.severity, d.message])).toEqual([
      [
        4,
        "warning",
        'layer "loose": "revoked" applies only with "signers" (the keys it revokes are signers\' keys); ignored',
      ],
      [5, "warning", 'layer "c": "revoked" applies only to a git or url layer with signers; ignored'],
    ]);
  });
});
