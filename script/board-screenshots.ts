/**
 * The screenshots in docs/board.md: each view of the board (the list with the Overview, a
 * prompt skill, a folder skill with its document and files, a skill the audit blocks, and a
 * client's cost), in the light
 * and the dark theme, at 1440 px, on the test project (test/helpers/board-fixture.ts), in
 * Debian's chromium through playwright-core.
 *
 *   bun script/board-screenshots.ts
 */
import { join } from "node:path";
import { BOARD_FILES, seedUsage } from "../test/helpers/board-fixture.ts";
import { launchChromium, startBoard } from "../test/helpers/board.ts";
import { makeFixture } from "../test/helpers/fixture.ts";
import { SOURCE_ENTRY } from "../test/helpers/server.ts";

const OUT = join(import.meta.dir, "..", "docs", "board");
/** Each view by its URL, the client picked, and the region drawn last. */
const VIEWS = [
  { name: "list", hash: "", client: "", last: "Cost per client" },
  { name: "prompt-skill", hash: "#/skill/hello", client: "", last: "Usage" },
  { name: "folder-skill", hash: "#/skill/handbook", client: "", last: "Usage" },
  { name: "blocked-skill", hash: "#/skill/installer", client: "", last: "Audit" },
  { name: "client-cost", hash: "#/skill/hello", client: "Cursor", last: "Usage" },
];

type PageGlobals = { document: { body: { dataset: Record<string, string | undefined> } } };

const fixture = makeFixture(BOARD_FILES);
seedUsage(fixture.home);
const board = await startBoard(
  { name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] },
  fixture.cwd,
  fixture.home,
);
const browser = await launchChromium();
try {
  for (const theme of ["light", "dark"] as const) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, colorScheme: theme });
    for (const view of VIEWS) {
      await page.goto(new URL(view.hash, board.url).href);
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).document.body.dataset.version !== undefined,
      );
      if (view.client !== "") {
        await page.getByLabel("Client", { exact: true }).selectOption({ label: view.client });
        await page.getByRole("region", { name: "Catalog cost" }).waitFor();
      }
      // The audit arrives after the load: its filter shows then, with the list's verdicts.
      await page.getByRole("combobox", { name: "Audit" }).waitFor();
      await page.getByRole("region", { name: view.last }).waitFor();
      const file = join(OUT, `${view.name}-${theme}.png`);
      await page.screenshot({ path: file, fullPage: view.client === "" });
      process.stdout.write(`${file}\n`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await board.stop();
  fixture.cleanup();
}
