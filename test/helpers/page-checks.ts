/**
 * What the board's accessibility tests ask of a page in a real browser, in one place for every
 * board suite: axe-core's serious and critical violations, and the parts of the page wider than
 * their box (a table pushing past its card, a page that scrolls sideways).
 */
import type { Page } from "playwright-core";

type AxeViolation = { id: string; impact?: string | null; nodes: { target: string[] }[] };
type OverflowElement = {
  scrollWidth: number;
  clientWidth: number;
  tagName: string;
  getAttribute(name: string): string | null;
};
type OverflowDocument = {
  documentElement: OverflowElement;
  querySelectorAll(selector: string): Iterable<OverflowElement>;
};

let axeText: string | undefined;

/** axe-core's serious and critical violations on the page as it is, each `id (impact): targets`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeText ??= await Bun.file(require.resolve("axe-core/axe.min.js")).text();
  await page.addScriptTag({ content: axeText });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
}

/** The sections, navs, tables and code blocks wider than their box (by label, else tag), and "page" when the page scrolls sideways. */
export function overflowingParts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: OverflowDocument }).document;
    const wide = (e: OverflowElement) => e.scrollWidth > e.clientWidth + 1;
    const whole = doc.documentElement.scrollWidth > doc.documentElement.clientWidth ? ["page"] : [];
    return [
      ...whole,
      ...[...doc.querySelectorAll("section, nav, table, pre")]
        .filter(wide)
        .map((e) => e.getAttribute("aria-label") ?? e.tagName),
    ];
  });
}
