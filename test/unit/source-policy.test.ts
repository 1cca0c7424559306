import { afterEach, describe, expect, test } from "bun:test";
import { parseSourcePattern, sourceMatches, type SourcePattern } from "../../src/config/source-patterns.ts";
import type { Diagnostic } from "../../src/diagnostics.ts";
import { join } from "node:path";
import { openSkills } from "../../src/api.ts";
import { applySourcePolicy } from "../../src/sources/source-policy.ts";
import { syncLayers } from "../../src/sources/sync.ts";
import { makeRemote, skill } from "../helpers/git-remote.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

/** `policy.sources` (docs/governance.md): the pattern rules, and the lists of several configs tighten only. */

function pattern(text: string): SourcePattern {
  const parsed = parseSourcePattern(text);
  if ("problem" in parsed) throw new Error(`${text}: ${parsed.problem}`);
  return parsed;
}

const allows = (p: string, url: string, kind: "git" | "well-known" = "git") => sourceMatches(pattern(p), url, kind);

describe("policy.sources patterns", () => {
  // [pattern, URL, kind, allowed]
  const table: [string, string, "git" | "well-known", boolean][] = [
    // `*` is one path segment; the URL's path must be matched whole for a git layer.
    ["https://github.com/acme/*", "https://github.com/acme/skills", "git", true],
    ["https://github.com/acme/*", "https://github.com/acme/skills.git", "git", true],
    ["https://github.com/acme/*", "https://github.com/acme/skills/", "git", true],
    ["https://github.com/acme/*", "https://github.com/acme", "git", false],
    ["https://github.com/acme/*", "https://github.com/acme/a/b", "git", false],
    ["https://github.com/acme/*", "https://github.com/acmeevil/skills", "git", false],
    ["https://github.com/acme/*", "https://github.com/evil/acme", "git", false],
    ["https://github.com/acme/skills-*", "https://github.com/acme/skills-ops", "git", true],
    ["https://github.com/acme/skills-*", "https://github.com/acme/tools", "git", false],
    // `**` any number of whole segments (none included).
    ["https://gitlab.acme.dev/**", "https://gitlab.acme.dev/a/b/c.git", "git", true],
    ["https://gitlab.acme.dev/group/**", "https://gitlab.acme.dev/group", "git", true],
    ["https://gitlab.acme.dev/group/**/skills", "https://gitlab.acme.dev/group/x/y/skills", "git", true],
    ["https://gitlab.acme.dev/group/**/skills", "https://gitlab.acme.dev/group/x/y/tools", "git", false],
    // Exact otherwise; the path keeps its case, the host does not.
    ["https://github.com/acme/skills", "https://github.com/acme/skills", "git", true],
    ["https://github.com/acme/skills", "https://github.com/Acme/skills", "git", false],
    ["https://GitHub.com/acme/skills", "https://github.COM/acme/skills.git", "git", true],
    ["https://github.com/acme/skills.git/", "https://github.com/acme/skills", "git", true],
    // An origin alone: every repository there.
    ["https://git.acme.dev", "https://git.acme.dev/any/repo.git", "git", true],
    ["https://git.acme.dev", "https://git.acme.dev.evil.com/any/repo.git", "git", false],
    // A secure pattern's host over any secure transport; plaintext only when the pattern says so.
    ["https://github.com/acme/*", "git@github.com:acme/skills.git", "git", true],
    ["https://github.com/acme/*", "ssh://git@github.com/acme/skills.git", "git", true],
    ["https://github.com/acme/*", "ssh://git@github.com:22/acme/skills.git", "git", true],
    ["https://github.com/acme/*", "ssh://git@github.com:2222/acme/skills.git", "git", false],
    ["https://github.com/acme/*", "http://github.com/acme/skills.git", "git", false],
    ["https://github.com/acme/*", "git://github.com/acme/skills.git", "git", false],
    ["ssh://git@github.com/acme/*", "https://github.com/acme/skills", "git", true],
    ["http://git.lan/acme/*", "http://git.lan/acme/skills", "git", true],
    ["git://git.lan/acme/*", "git://git.lan/acme/skills", "git", true],
    ["git://git.lan/acme/*", "http://git.lan/acme/skills", "git", false],
    // Credentials in the URL are not part of what is matched.
    ["https://github.com/acme/*", "https://user:tok3n@github.com/acme/skills.git", "git", true],
    ["https://github.com/acme/*", "https://tok3n@github.com/evil/skills.git", "git", false],
    // A sub-domain wildcard, never the domain itself.
    ["https://*.acme.dev", "https://skills.acme.dev/x", "git", true],
    ["https://*.acme.dev", "https://acme.dev/x", "git", false],
    ["https://*.acme.dev", "https://evilacme.dev/x", "git", false],
    // A port is part of the origin.
    ["https://git.acme.dev:8443", "https://git.acme.dev:8443/x", "git", true],
    ["https://git.acme.dev", "https://git.acme.dev:8443/x", "git", false],
    ["https://git.acme.dev", "https://git.acme.dev:443/x", "git", true],
    // Dot segments cannot walk out of an allowed folder (they match nothing).
    ["https://github.com/acme/**", "https://github.com/acme/../evil/x", "git", false],
    ["https://github.com/acme/**", "https://github.com/acme/%2e%2e/evil/x", "git", false],
    // Local repositories need an explicit file:// pattern.
    ["file:///srv/git/*", "file:///srv/git/skills.git", "git", true],
    ["file:///srv/git/*", "/srv/git/skills.git", "git", true],
    ["file:///srv/git/*", "file:///srv/other/skills.git", "git", false],
    ["https://github.com/acme/*", "file:///srv/git/skills.git", "git", false],
    ["file:///srv/git/*", "https://srv/git/skills", "git", false],
    // Remote helpers and unknown forms are never placed.
    ["https://github.com/acme/*", "ext::sh -c evil", "git", false],
    // A url layer: by origin, and by a leading part of the index's path when the pattern has one.
    ["https://skills.acme.dev", "https://skills.acme.dev/.well-known/agent-skills/index.json", "well-known", true],
    ["https://skills.acme.dev", "https://skills.acme.dev.evil.com/index.json", "well-known", false],
    ["https://skills.acme.dev", "http://skills.acme.dev/index.json", "well-known", false],
    ["https://acme.dev/team", "https://acme.dev/team/.well-known/agent-skills/index.json", "well-known", true],
    ["https://acme.dev/team", "https://acme.dev/teams/index.json", "well-known", false],
    ["https://acme.dev/team", "https://acme.dev/other/index.json", "well-known", false],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/site/index.json", "well-known", true],
    ["http://127.0.0.1:8080", "http://127.0.0.1:9090/site/index.json", "well-known", false],
  ];
  for (const [p, url, kind, allowed] of table) {
    test(`${p} ${allowed ? "allows" : "refuses"} ${kind === "git" ? "git" : "url"} ${url}`, () => {
      expect(allows(p, url, kind)).toBe(allowed);
    });
  }

  test("many ** against a long path is answered at once (each position tried once)", () => {
    const deep = `https://git.acme.dev/${"a/".repeat(200)}b`;
    expect(allows(`https://git.acme.dev/${"**/".repeat(30)}c`, deep)).toBe(false);
    expect(allows(`https://git.acme.dev/${"**/".repeat(30)}b`, deep)).toBe(true);
  });

  test("a pattern that cannot be read says why, and never repeats a password", () => {
    const problem = (text: string) => {
      const parsed = parseSourcePattern(text);
      return "problem" in parsed ? parsed.problem : undefined;
    };
    expect(problem("github.com/acme/*")).toContain("must be a URL pattern");
    expect(problem("ftp://host/x")).toContain('uses "ftp://"');
    expect(problem("https://user:s3cretpw@github.com/acme/*")).toBe(
      "carries a password; a pattern names a host and a path, never credentials",
    );
    expect(problem("https://git*.acme.dev")).toContain("leading *.");
    expect(problem("https://github.com/acme/a**")).toContain("whole segment");
    expect(problem("https://github.com/acme/../x")).toContain(". or ..");
    expect(problem("file:///")).toContain("must name a folder");
    expect(problem("file://host/x")).toContain("file:///absolute/path");
    expect(problem("https://github.com/acme?x=1")).toContain("query");
  });
});

describe("policy.sources across configs", () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  const GIT = (name: string, url: string) => `  - { name: ${name}, priority: 50, git: "${url}" }\n`;

  async function applied(files: Record<string, string>) {
    fixture = makeFixture(files);
    const { config, diagnostics } = await resolvedConfig(fixture, { builtin: false });
    const refused: Diagnostic[] = [];
    const out = applySourcePolicy(config, (d) => refused.push(d));
    return {
      config: out,
      diagnostics,
      refused: refused.map((d) => d.message),
      served: out.layers.filter((l) => !l.outsidePolicy).map((l) => l.name),
    };
  }

  test("without sources: every layer as today", async () => {
    const { served, refused, config } = await applied({
      "skill-central.yaml": `layers:\n${GIT("a", "https://example.com/a.git")}`,
    });
    expect(served).toEqual(["a"]);
    expect(refused).toEqual([]);
    expect(config.sourceLists).toBeUndefined();
  });

  test("a project's list cannot widen the user's: a layer must match both", async () => {
    const { served, refused } = await applied({
      "~/.skill-central/config.yaml": "policy:\n  sources: [https://github.com/acme/*]\n",
      "skill-central.yaml": `policy:\n  sources: ["https://github.com/acme/*", "https://github.com/evil/*"]\nlayers:\n${GIT("ok", "https://github.com/acme/x")}${GIT("evil", "https://tok3n@github.com/evil/x")}`,
    });
    expect(served).toEqual(["ok"]);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('git layer "evil" (https://***@github.com/evil/x)');
    expect(refused[0]).toContain("outside policy.sources (https://github.com/acme/*; set in ");
    expect(refused[0]).toContain(".skill-central/config.yaml)");
    expect(refused[0]).not.toContain("tok3n");
  });

  test("a project's list narrows the user's", async () => {
    const { served, refused } = await applied({
      "~/.skill-central/config.yaml": "policy:\n  sources: [https://github.com/**]\n",
      "skill-central.yaml": `policy:\n  sources: [https://github.com/acme/*]\nlayers:\n${GIT("ok", "https://github.com/acme/x")}${GIT("other", "https://github.com/other/x")}`,
    });
    expect(served).toEqual(["ok"]);
    expect(refused[0]).toContain('git layer "other"');
    expect(refused[0]).toContain("skill-central.yaml)");
  });

  test("a project's list applies under no user list", async () => {
    const { served } = await applied({
      "~/.skill-central/config.yaml": `layers:\n${GIT("mine", "https://example.com/mine.git")}`,
      "skill-central.yaml": "policy:\n  sources: [https://github.com/acme/*]\n",
    });
    expect(served).toEqual([]);
  });

  test("folder layers are not sources: a policy never refuses them", async () => {
    const { served } = await applied({
      "skill-central.yaml": "policy:\n  sources: []\nlayers:\n  - { name: local, priority: 50, path: ./skills }\n",
    });
    expect(served).toEqual(["local"]);
  });

  test("fails closed: an empty list, a list that cannot be read, or a policy that is not a mapping refuses every remote layer", async () => {
    for (const policy of ["policy:\n  sources: []\n", "policy:\n  sources: 7\n", "policy: yes\n"]) {
      const { served, refused, diagnostics } = await applied({
        "skill-central.yaml": `${policy}layers:\n${GIT("a", "https://github.com/acme/a")}`,
      });
      expect(served).toEqual([]);
      expect(refused).toHaveLength(1);
      if (!policy.includes("[]")) expect(diagnostics.some((d) => d.severity === "error")).toBe(true);
    }
  });

  test("a pattern that cannot be read is an error and allows nothing; the others still apply", async () => {
    const { served, diagnostics } = await applied({
      "skill-central.yaml": `policy:\n  sources: ["github.com/*", "https://github.com/acme/*"]\nlayers:\n${GIT("a", "https://github.com/acme/a")}${GIT("b", "https://github.com/b/b")}`,
    });
    expect(served).toEqual(["a"]);
    expect(diagnostics.map((d) => [d.severity, d.message])).toContainEqual([
      "error",
      '"policy.sources" entry 1 must be a URL pattern such as https://github.com/acme/* or file:///srv/git/*; it allows nothing',
    ]);
  });

  test("an unknown key under policy is named", async () => {
    const { diagnostics } = await applied({ "skill-central.yaml": "policy:\n  source: [https://x.dev]\n" });
    expect(diagnostics.map((d) => d.message).join("\n")).toContain('unknown key "policy.source"');
  });
});

describe("policy.sources through the library API", () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  test("openSkills serves nothing of a layer outside the list, though its copy is synced, and says why", async () => {
    fixture = makeFixture();
    const outside = makeRemote(join(fixture.root, "elsewhere"), "outside.git");
    outside.commit({ "smuggled.yaml": skill("smuggled") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: outside, priority: 50, git: "${outside.url}" }\n  - { name: local, priority: 60, path: ./skills }\n`,
    );
    fixture.write("skills/kept.yaml", skill("kept"));
    const where = { cwd: fixture.cwd, home: fixture.home };
    expect((await syncLayers({ ...where, mode: "sync" }, () => {})).ok).toBe(true);
    expect((await openSkills(where)).list().map((s) => s.id)).toEqual(["kept", "smuggled"]);
    fixture.write("~/.skill-central/config.yaml", `policy:\n  sources: ["file://${join(fixture.root, "srv")}/*"]\n`);
    const skills = await openSkills(where);
    expect(skills.list().map((s) => s.id)).toEqual(["kept"]);
    expect(skills.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([
      `git layer "outside" (${outside.url}): it is outside policy.sources (file://${join(fixture.root, "srv")}/*; set in ${join(fixture.home, ".skill-central", "config.yaml")}), so nothing of it is fetched or served`,
    ]);
    const again = await syncLayers({ ...where, mode: "sync" }, () => {});
    expect(again.ok).toBe(false);
    expect(again.layers.map((l) => [l.name, l.outcome])).toEqual([["outside", "failed"]]);
  });
});
