import { expect, test } from "bun:test";
import { skillUri } from "../../src/skill/skill-uri.ts";

test("a skill is skill://<name>/SKILL.md; its files keep their folders, each segment encoded", () => {
  expect(skillUri("pdf-tools")).toBe("skill://pdf-tools/SKILL.md");
  expect(skillUri("pdf-tools", "references/forms.md")).toBe("skill://pdf-tools/references/forms.md");
  expect(skillUri("pdf-tools", "assets/my logo#1.png")).toBe("skill://pdf-tools/assets/my%20logo%231.png");
});
