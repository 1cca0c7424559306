import { describe, expect, test } from "bun:test";
import type { ConfigProblem } from "../../src/config/config-problem.ts";
import { type Looser, mayDeclare, type MergeRules, mergeSettings } from "../../src/config/merge-settings.ts";

/**
 * Issue 47 item 3: one merge for every config block, each key's rule declared beside its schema.
 * Each rule both ways: where the later declaration counts, and where it does not.
 */

interface Settings {
  mode: "a" | "b";
  cap?: number;
  list: readonly string[];
  store: string;
  gate: "open" | "ajar" | "shut";
}

const RULES: MergeRules<Settings> = {
  mode: "later",
  cap: "later",
  list: "joined",
  store: "user",
  gate: { tighter: ["open", "ajar", "shut"] },
};
const DEFAULTS: Settings = Object.freeze({ mode: "a", list: [], store: "/default", gate: "ajar" });

function merge(user: Partial<Settings>[], project?: Partial<Settings>) {
  const looser: Looser<Settings>[] = [];
  const settings = mergeSettings(RULES, DEFAULTS, user, { settings: project, looser: (l) => looser.push(l) });
  return { settings, looser };
}

describe("later: the last declaration that sets a key wins", () => {
  test("a later declaration replaces an earlier one, the project's last of all", () => {
    expect(merge([{ mode: "b", cap: 1 }, { cap: 2 }], { cap: 3 }).settings).toMatchObject({ mode: "b", cap: 3 });
  });

  test("a key a declaration leaves out (or sets undefined) keeps what came before", () => {
    expect(merge([{ cap: 1 }, { cap: undefined }], {}).settings).toMatchObject({ mode: "a", cap: 1 });
    expect(mergeSettings(RULES, DEFAULTS, [])).toEqual(DEFAULTS);
  });

  test("a key with no rule is not taken", () => {
    expect(mergeSettings(RULES, DEFAULTS, [{ other: 1 } as Partial<Settings>])).toEqual(DEFAULTS);
  });
});

describe("joined: every declaration's entries, in order, each once", () => {
  test("the user's and the project's lists are joined after the default's", () => {
    expect(
      mergeSettings(RULES, { ...DEFAULTS, list: ["d"] }, [{ list: ["u", "x"] }], { settings: { list: ["x", "p"] } })
        .list,
    ).toEqual(["d", "u", "x", "p"]);
  });

  test("a declaration without the key, or with an empty list, takes nothing away", () => {
    expect(merge([{ list: ["u"] }, {}], { list: [] }).settings.list).toEqual(["u"]);
  });
});

describe("user: the user's alone", () => {
  test("the user's declarations set it, later over earlier", () => {
    expect(merge([{ store: "/one" }, { store: "/two" }]).settings.store).toBe("/two");
  });

  test("a project's value is never taken, even when its reader forgot to refuse it", () => {
    expect(merge([{ store: "/mine" }], { store: "/theirs" }).settings.store).toBe("/mine");
    expect(merge([], { store: "/theirs" }).settings.store).toBe("/default");
  });

  test("mayDeclare: a user-only key in a project's config is refused with one warning at it; the user's is not", () => {
    const problems: ConfigProblem[] = [];
    const at = { name: "x.store", path: ["store"], report: (p: ConfigProblem) => problems.push(p) };
    expect(mayDeclare(RULES, "store", "user", at)).toBe(true);
    expect(mayDeclare(RULES, "cap", "project", at)).toBe(true);
    expect(problems).toEqual([]);
    expect(mayDeclare(RULES, "store", "project", at)).toBe(false);
    expect(problems).toEqual([
      {
        message: "x.store is a user setting; ignored in a project's config",
        path: ["store"],
        hint: "set it in your own ~/.skill-central/config.yaml",
      },
    ]);
  });
});

describe("tighter: a project may tighten, never loosen", () => {
  test("a project's value at least as tight as the floor wins", () => {
    expect(merge([], { gate: "shut" })).toEqual({ settings: { ...DEFAULTS, gate: "shut" }, looser: [] });
    expect(merge([{ gate: "open" }], { gate: "open" }).looser).toEqual([]);
  });

  test("a project's looser value is left out and told, with the floor it would have lowered", () => {
    expect(merge([], { gate: "open" })).toEqual({
      settings: DEFAULTS,
      looser: [{ key: "gate", wanted: "open", floor: "ajar" }],
    });
    expect(merge([{ gate: "shut" }], { gate: "ajar" }).looser).toEqual([
      { key: "gate", wanted: "ajar", floor: "shut" },
    ]);
  });

  test("the user's own declarations are free to loosen the default, and each other", () => {
    expect(merge([{ gate: "shut" }, { gate: "open" }])).toEqual({
      settings: { ...DEFAULTS, gate: "open" },
      looser: [],
    });
  });
});
