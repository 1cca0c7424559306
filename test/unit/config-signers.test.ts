import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

/** The `signers` layer key (docs/provenance.md): git and url layers only, a path relative to its config file. */

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function resolve(files: Record<string, string>) {
  fixture = makeFixture(files);
  return resolvedConfig(fixture, { builtin: false });
}

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
    expect(byName.team!.git!.signers).toBe(join(fixture.cwd, "keys", "allowed_signers"));
    expect(byName.vendor!.wellKnown!.signers).toBe(join(fixture.cwd, "vendor.allowed_signers"));
    expect(byName.mine!.git!.signers).toBe(join(fixture.home, "trusted"));
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
      [
        2,
        'layer "a": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored (it is not served unverified)',
      ],
      [
        3,
        'layer "b": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored (it is not served unverified)',
      ],
      [4, 'layer "c": "signers" applies only to a git or url layer; ignored'],
    ]);
    expect(config.layers.map((l) => l.name)).toEqual(["c"]);
  });
});
