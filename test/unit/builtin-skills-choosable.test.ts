import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSkills } from "../../src/load/load-skills.ts";
import { COMPETING_THRESHOLD, overlapInput, overlapPairs } from "../../src/registry/overlap.ts";
import { vagueDescription } from "../../src/skill/description-quality.ts";

/**
 * The built-in skills are in every catalog, so a model must be able to choose between them in any
 * catalog: no two compete, whatever surrounds them. A term's weight grows as the catalog around it
 * grows (it gets rarer), so the pair is scored among a thousand unrelated skills too, where the
 * weights are nearly even: the score's ceiling. (Issue 51: review-pr and security-review competed
 * at 0.317 beside anthropics' skills; security-review's description now says what sets it apart.)
 */
const root = mkdtempSync(join(tmpdir(), "builtin-choosable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the built-in skills can be chosen between", async () => {
  const loaded = await loadSkills({ cwd: root, home: root });
  const builtins = loaded.registry.served().map(overlapInput);

  test("there are built-in skills to judge", () => {
    expect(builtins.length).toBeGreaterThanOrEqual(8);
  });

  for (const around of [0, 20, 1000]) {
    test(`no two built-in skills compete beside ${around} unrelated skills`, () => {
      const filler = Array.from({ length: around }, (_, i) => ({
        id: `unrelated-${i.toString(36)}`,
        description: `zq${i}a wv${i}b kj${i}c xp${i}d`,
        tags: [],
      }));
      const ids = new Set(builtins.map((b) => b.id));
      const competing = overlapPairs([...builtins, ...filler], COMPETING_THRESHOLD).filter(
        (p) => ids.has(p.a) && ids.has(p.b),
      );
      expect(competing).toEqual([]);
    });
  }

  test("no built-in description is too vague to choose by", () => {
    expect(builtins.flatMap((b) => vagueDescription(b.id, b.description) ?? [])).toEqual([]);
  });
});
