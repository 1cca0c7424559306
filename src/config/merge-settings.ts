/**
 * The one merge of a config block's declarations: the defaults, then the user's own declarations
 * (the user's config file, the command line), then a project's config. Each key of a block
 * declares its rule beside the block's schema (`MergeRules`), and this module is the only place
 * the rules are carried out, so every block merges the same way and says how in one line per key:
 *
 * - `later`: the last declaration that sets the key wins, key by key (`catalog.toolCap`);
 * - `joined`: a list; every declaration's entries, in order, each once (`enable`, `audit.allow`);
 * - `user`: the user's alone (config-origin.ts): a project's config may not set it. Its reader
 *   refuses the key with a warning at the key (`mayDeclare`); the merge never takes a
 *   project's value either, so the rule holds whichever reader forgets;
 * - `{ tighter: [loosest, …, tightest] }`: a project's value counts only when it is at least as
 *   tight as what the defaults and the user's declarations set (the audit gate's floor); a looser
 *   one is left out and passed to `looser`, for the block to say in its own words.
 *
 * What is a block's own stays in the block (the audit's project pins are bounded to the project's
 * layers before they are joined: audit-settings.ts).
 */
import { type ConfigOrigin, userOnly } from "./config-origin.ts";
import type { ConfigPath, ReportProblem } from "./config-problem.ts";

/** How one key's declarations become one value; the compiler allows `joined` on lists and `tighter` on words only. */
export type MergeRule<Value> =
  | "later"
  | "user"
  | (NonNullable<Value> extends readonly unknown[] ? "joined" : never)
  | (NonNullable<Value> extends string ? { readonly tighter: readonly NonNullable<Value>[] } : never);

/** A block's rule for each of its keys: every key has one, so a new key cannot be left out of the merge. */
export type MergeRules<Settings> = { readonly [Key in keyof Settings]-?: MergeRule<Settings[Key]> };

/** A project's key the merge left out because it is looser than what it would replace. */
export interface Looser<Settings> {
  key: keyof Settings & string;
  /** The project's value. */
  wanted: string;
  /** What is in effect instead: the default's or the user's. */
  floor: string;
}

export interface ProjectDeclaration<Settings> {
  settings: Partial<Settings> | undefined;
  /** Told of each key the merge left out as looser (a `tighter` key). */
  looser?: (looser: Looser<Settings>) => void;
}

/**
 * `defaults`, then each of the user's own `declarations` in order, then the `project`'s, by each
 * key's rule. A key a declaration leaves out (`undefined`) changes nothing.
 */
export function mergeSettings<Settings extends object>(
  rules: MergeRules<Settings>,
  defaults: Settings,
  declarations: readonly (Partial<Settings> | undefined)[],
  project?: ProjectDeclaration<Settings>,
): Settings {
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  const ruleOf = rules as Readonly<Record<string, "later" | "user" | "joined" | { tighter: readonly unknown[] }>>;
  const take = (declared: Partial<Settings> | undefined, origin: ConfigOrigin) => {
    if (declared === undefined) return;
    for (const [key, value] of Object.entries(declared)) {
      if (value === undefined || !Object.hasOwn(rules, key)) continue;
      const rule = ruleOf[key]!;
      const before = merged[key];
      if (rule === "joined") {
        merged[key] = [...new Set([...((before as readonly unknown[] | undefined) ?? []), ...(value as unknown[])])];
        continue;
      }
      if (rule === "user" && origin === "project") continue;
      // A `tighter` key binds a project's value only, and only once something is in effect to hold.
      const held = typeof rule === "object" && origin === "project" && before !== undefined;
      if (!held || rule.tighter.indexOf(value) >= rule.tighter.indexOf(before)) merged[key] = value;
      else project?.looser?.({ key: key as keyof Settings & string, wanted: String(value), floor: String(before) });
    }
  };
  for (const declared of declarations) take(declared, "user");
  take(project?.settings, "project");
  return merged as Settings;
}

/**
 * Whether a config of `origin` may declare `key` (named `name`, at `path` under its block): a
 * `user` key in a project's config is refused, with one warning at it (config-origin.ts).
 */
export function mayDeclare<Settings>(
  rules: MergeRules<Settings>,
  key: keyof Settings,
  origin: ConfigOrigin,
  at: { name: string; path: ConfigPath; report: ReportProblem },
): boolean {
  return rules[key] !== "user" || userOnly(origin, at.name, at.path, at.report);
}
