import { afterEach, describe, expect, test } from "bun:test";
import type { VisibleTo } from "../../src/config/visible-to.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import { sourceFor } from "../../src/mcp/caller-source.ts";
import { cacheHints } from "../../src/mcp/cache-hints.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { ANONYMOUS, canSee, type Caller, LOCAL_USER } from "../../src/registry/caller.ts";
import { publishedCatalog } from "../../src/registry/published-skills.ts";
import { buildRegistry, type Candidate, type LayerRef } from "../../src/registry/registry.ts";
import { searchIndexOf } from "../../src/registry/search.ts";
import { hasRestrictedLayers, visibleRegistry } from "../../src/registry/visibility.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

const only = (visibleTo: Partial<VisibleTo>): VisibleTo => ({ claims: {}, labels: [], ...visibleTo });
const token = (label: string): Caller => ({ kind: "token", label });
const oauth = (claims: Record<string, unknown>): Caller => ({
  kind: "oauth",
  issuer: "https://id.example.com",
  subject: "u",
  name: "u",
  claims,
});

describe("canSee: who a visibleTo admits", () => {
  const security = only({ claims: { groups: ["security", "sre"] }, labels: ["alice"] });

  test("a listed label is admitted; another label, or none, is not", () => {
    expect(canSee(security, token("alice"))).toBe(true);
    expect(canSee(security, token("bob"))).toBe(false);
    expect(canSee(security, ANONYMOUS)).toBe(false);
  });

  test("a string claim equal to a listed value, or an array claim holding one, is admitted", () => {
    expect(canSee(security, oauth({ groups: "sre" }))).toBe(true);
    expect(canSee(security, oauth({ groups: ["dev", "security"] }))).toBe(true);
    expect(canSee(security, oauth({ groups: ["dev"] }))).toBe(false);
    expect(canSee(security, oauth({ groups: "dev" }))).toBe(false);
    // Another claim holding the value does not count, nor does a non-string value.
    expect(canSee(security, oauth({ roles: ["security"] }))).toBe(false);
    expect(canSee(security, oauth({ groups: [1, { security: true }] }))).toBe(false);
  });

  test("no visibleTo admits everyone; the local user (stdio, the board) sees every layer", () => {
    expect(canSee(undefined, ANONYMOUS)).toBe(true);
    expect(canSee(security, LOCAL_USER)).toBe(true);
  });

  test("an empty visibleTo admits no HTTP caller at all", () => {
    expect(canSee(only({}), token("alice"))).toBe(false);
    expect(canSee(only({}), oauth({ groups: ["security"] }))).toBe(false);
  });
});

function skill(id: string, tags: string[] = []): Skill {
  return {
    id,
    description: `${id} skill`,
    type: "prompt",
    tags,
    arguments: [],
    argumentsDeclared: true,
    exampleCount: 0,
  };
}

function candidate(id: string, layer: LayerRef, tags: string[] = []): Candidate {
  return {
    skill: skill(id, tags),
    layer,
    path: `/${layer.name}/${id}.yaml`,
    source: `${layer.name}/${id}.yaml`,
    content: { read: () => ({ template: `${id} from ${layer.name}`, examples: [] }) },
  };
}

describe("visibleRegistry: the registry as one caller sees it", () => {
  const team: LayerRef = { name: "team", priority: 50, order: 0 };
  const security: LayerRef = { name: "security", priority: 60, order: 1, visibleTo: only({ labels: ["alice"] }) };
  const sre: LayerRef = { name: "sre", priority: 70, order: 2, visibleTo: only({ claims: { groups: ["sre"] } }) };
  const build = () =>
    buildRegistry(
      [team, security, sre],
      [
        candidate("shared", team, ["ops"]),
        candidate("shared", security, ["ops"]),
        candidate("runbook", security, ["ops"]),
        candidate("pager", sre),
        candidate("public", team),
      ],
    ).registry;

  test("with no layer declaring visibleTo, every caller gets the snapshot itself: the same object, nothing built", () => {
    const { registry } = buildRegistry([team], [candidate("public", team)]);
    expect(hasRestrictedLayers(registry)).toBe(false);
    expect(visibleRegistry(registry, ANONYMOUS)).toBe(registry);
    expect(visibleRegistry(registry, token("bob"))).toBe(registry);
    expect(visibleRegistry(registry, LOCAL_USER)).toBe(registry);
  });

  test("the local user (stdio) and a caller who sees every layer get the snapshot itself", () => {
    const registry = build();
    expect(hasRestrictedLayers(registry)).toBe(true);
    expect(visibleRegistry(registry, LOCAL_USER)).toBe(registry);
    const { registry: secured } = buildRegistry([team, security], [candidate("public", team)]);
    expect(visibleRegistry(secured, token("alice"))).toBe(secured);
  });

  test("a hidden layer's skills are gone, and its shadowing skill gives way to the visible one", () => {
    const registry = build();
    const bob = visibleRegistry(registry, token("bob"));
    expect(bob.served().map((c) => c.skill.id)).toEqual(["public", "shared"]);
    expect(bob.get("shared")?.layer.name).toBe("team");
    expect(bob.get("runbook")).toBeUndefined();
    expect(bob.resolution("pager")).toBeUndefined();
    // The chain of the shared id names no hidden layer; nor does the layer list.
    expect(bob.resolution("shared")?.chain.map((p) => p.candidate.layer.name)).toEqual(["team"]);
    expect(bob.layers.map((l) => l.name)).toEqual(["team"]);
    expect(bob.promptsTagged("ops").map((c) => c.layer.name)).toEqual(["team"]);

    const alice = visibleRegistry(registry, token("alice"));
    expect(alice.served().map((c) => c.skill.id)).toEqual(["public", "runbook", "shared"]);
    expect(alice.get("shared")?.layer.name).toBe("security");
    expect(alice.get("pager")).toBeUndefined();

    const onCall = visibleRegistry(registry, oauth({ groups: ["sre"] }));
    expect(onCall.served().map((c) => c.skill.id)).toEqual(["pager", "public", "shared"]);
    expect(onCall.get("shared")?.layer.name).toBe("team");
  });

  test("views are made once per snapshot and set of hidden layers, and shared by callers with the same set", () => {
    const registry = build();
    const bob = visibleRegistry(registry, token("bob"));
    expect(visibleRegistry(registry, token("bob"))).toBe(bob);
    expect(visibleRegistry(registry, ANONYMOUS)).toBe(bob);
    expect(visibleRegistry(registry, oauth({ groups: ["dev"] }))).toBe(bob);
    expect(visibleRegistry(registry, token("alice"))).not.toBe(bob);
    // A view shows what it shows to everyone asking about it again: a view of a view is itself.
    expect(visibleRegistry(bob, token("bob"))).toBe(bob);
    // Another snapshot (a reload) has views of its own.
    expect(visibleRegistry(build(), token("bob"))).not.toBe(bob);
  });

  test("what is derived per snapshot follows the view: search and the published skills hold only what it sees", () => {
    const registry = build();
    const bob = visibleRegistry(registry, token("bob"));
    expect(publishedCatalog(bob).skills.map((s) => s.candidate.skill.id)).toEqual(["public", "shared"]);
    expect(publishedCatalog(registry).skills.map((s) => s.candidate.skill.id)).toEqual([
      "pager",
      "public",
      "runbook",
      "shared",
    ]);
    expect(searchIndexOf(bob)).not.toBe(searchIndexOf(registry));
    expect(searchIndexOf(bob)).toBe(searchIndexOf(visibleRegistry(registry, ANONYMOUS)));
  });

  test("a per-caller source maps every snapshot and every swap through the view; stdio's is the source itself", async () => {
    const live = new LiveRegistry();
    expect(sourceFor(live, LOCAL_USER)).toBe(live);
    const bob = sourceFor(live, token("bob"));
    expect(bob.loaded()).toBeUndefined();
    const first = build();
    live.swap(first);
    expect((await bob.current()).get("runbook")).toBeUndefined();
    expect(bob.loaded()).toBe(visibleRegistry(first, token("bob")));
    const swaps: [string[], string[]][] = [];
    const stop = bob.onSwap((next, previous) =>
      swaps.push([next.served().map((c) => c.skill.id), previous.served().map((c) => c.skill.id)]),
    );
    live.swap(buildRegistry([team, security], [candidate("public", team), candidate("secret", security)]).registry);
    stop();
    expect(swaps).toEqual([[["public"], ["public", "shared"]]]);
  });

  test("cache hints are private everywhere once results differ by caller", () => {
    const hints = cacheHints({ live: true, perCaller: true });
    expect(Object.values(hints).map((h) => h.cacheScope)).toEqual(Object.values(hints).map(() => "private"));
    expect(cacheHints({ live: true })["prompts/list"]?.cacheScope).toBe("public");
  });
});

let fixture: Fixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

async function configOf(yaml: string) {
  fixture = makeFixture({
    "skill-central.yaml": yaml,
    ".skills/a.yaml": "id: a\ndescription: A\ntype: prompt\nprompt: hi\n",
  });
  return resolvedConfig(fixture, { builtin: false });
}

const layerWith = (visibleTo: string) =>
  `layers:\n  - name: security\n    path: .skills\n    priority: 40\n    visibleTo: ${visibleTo}\n`;

describe("visibleTo in the config", () => {
  test("claims and labels are read as declared, with no finding", async () => {
    const { config, diagnostics } = await configOf(
      layerWith("{ claims: { groups: [security, sre], email: lead@example.com }, labels: [alice] }"),
    );
    expect(diagnostics).toEqual([]);
    expect(config.layers[0]!.visibleTo).toEqual({
      claims: { groups: ["security", "sre"], email: ["lead@example.com"] },
      labels: ["alice"],
    });
  });

  test("a layer without visibleTo has none: everyone sees it", async () => {
    const { config } = await configOf("layers:\n  - { name: team, path: .skills, priority: 40 }\n");
    expect(config.layers[0]!.visibleTo).toBeUndefined();
  });

  // Each malformed visibleTo: the warnings that name the problem, and who the layer is then visible to.
  const nobody = 'layer "security": "visibleTo" allows nobody, so no HTTP caller sees this layer (stdio still does)';
  const notAMapping = 'layer "security": "visibleTo" must be a mapping with claims and/or labels; it grants nobody';
  const failClosed: [string, string, string[], VisibleTo][] = [
    ["null", "null", [notAMapping, nobody], only({})],
    ["a list", "[alice]", [notAMapping, nobody], only({})],
    ["a string", "alice", [notAMapping, nobody], only({})],
    ["empty", "{}", [nobody], only({})],
    ["empty lists", "{ labels: [], claims: {} }", [nobody], only({})],
    [
      "labels as a mapping",
      "{ labels: { alice: true } }",
      ['layer "security": "visibleTo.labels" must be a list of strings; it grants nobody', nobody],
      only({}),
    ],
    [
      "claims as a list",
      "{ claims: [groups] }",
      ['layer "security": "visibleTo.claims" must be a mapping of claim name to values; it grants nobody', nobody],
      only({}),
    ],
    [
      "a misspelt key beside a good one",
      "{ label: [bob], claims: { groups: [sre] } }",
      ['layer "security": unknown key "visibleTo.label" is ignored (known keys: claims, labels)'],
      only({ claims: { groups: ["sre"] } }),
    ],
    [
      "a number among the labels",
      "{ labels: [alice, 42] }",
      ['layer "security": "visibleTo.labels" entry 2 must be a non-empty string; it grants nobody'],
      only({ labels: ["alice"] }),
    ],
    [
      "an empty label",
      "{ labels: [alice, ''] }",
      ['layer "security": "visibleTo.labels" entry 2 must be a non-empty string; it grants nobody'],
      only({ labels: ["alice"] }),
    ],
    [
      "a claim with a mapping value",
      "{ claims: { groups: { a: 1 } } }",
      ['layer "security": "visibleTo.claims.groups" must be a list of strings; it grants nobody', nobody],
      only({}),
    ],
  ];
  for (const [name, yaml, warnings, visibleTo] of failClosed) {
    test(`fails closed on ${name}: a warning names it, and the layer is never visible to everyone`, async () => {
      const { config, messages, diagnostics } = await configOf(layerWith(yaml));
      expect(messages).toEqual(warnings);
      expect(diagnostics.every((d) => d.severity === "warning" && d.position?.line === 5)).toBe(true);
      const layer = config.layers[0]!;
      expect(layer.visibleTo).toEqual(visibleTo);
      expect(canSee(layer.visibleTo, ANONYMOUS)).toBe(false);
      expect(canSee(layer.visibleTo, token("bob"))).toBe(false);
      expect(canSee(layer.visibleTo, oauth({ groups: ["dev"] }))).toBe(false);
    });
  }

  test("a lone string is a list of one, for labels and for a claim", async () => {
    const { config, diagnostics } = await configOf(layerWith("{ labels: alice, claims: { email: lead@example.com } }"));
    expect(diagnostics).toEqual([]);
    expect(config.layers[0]!.visibleTo).toEqual(only({ labels: ["alice"], claims: { email: ["lead@example.com"] } }));
  });

  test("a warning points at the visibleTo key of the layer", async () => {
    const { diagnostics } = await configOf(layerWith("{}"));
    expect(diagnostics[0]!.position?.line).toBe(5);
  });

  test("a git layer keeps its visibleTo, even when it has nothing to serve yet", async () => {
    fixture = makeFixture({
      "skill-central.yaml":
        "layers:\n  - { name: vault, priority: 40, git: https://example.com/s.git, visibleTo: { labels: [alice] } }\n",
    });
    const loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home, builtin: false });
    expect(loaded.registry.layers).toEqual([
      { name: "vault", priority: 40, order: 0, visibleTo: only({ labels: ["alice"] }) },
    ]);
  });

  test("the loader carries visibleTo to the registry's layers", async () => {
    fixture = makeFixture({
      "skill-central.yaml": `${layerWith("{ labels: [alice] }")}  - { name: team, path: team, priority: 10 }\n`,
      ".skills/a.yaml": "id: a\ndescription: A\ntype: prompt\nprompt: hi\n",
      "team/a.yaml": "id: a\ndescription: A for the team\ntype: prompt\nprompt: hello\n",
    });
    const { registry } = await loadSkills({ cwd: fixture.cwd, home: fixture.home, builtin: false });
    const caller = token("bob");
    expect(registry.get("a")?.layer.name).toBe("security");
    expect(visibleRegistry(registry, caller).get("a")?.layer.name).toBe("team");
  });
});
