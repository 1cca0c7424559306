import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import {
  chromiumInstalled,
  launchChromium,
  nextVersion,
  shownVersion,
  startBoard,
  type RunningBoard,
} from "../helpers/board.ts";
import { BOARD_FILES, DATA_PATHS, HOSTILE_HTML, SEEDED_USES, seedUsage } from "../helpers/board-fixture.ts";
import { DAMAGE, writeGarbageStore } from "../helpers/damaged-store.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { overflowingParts, seriousViolations } from "../helpers/page-checks.ts";
import { RULES_BY_ID } from "../../src/audit/rules.ts";

const FILES = BOARD_FILES;

type AuditJsonFinding = { rule: string; severity: string; file: string; line: number; column: number; message: string };

/**
 * The views axe checks (in both themes, at 1024 and 1440 px), each by its URL and the region
 * drawn last (a skill's Audit arrives after its load is shown).
 */
const AXE_VIEWS = [
  { name: "the list", hash: "#", waitFor: "Unused skills" },
  { name: "the Overview with every layer's problems", hash: "#/?problems=all", waitFor: "Cost per client" },
  { name: "a prompt skill", hash: "#/skill/hello", waitFor: "Usage" },
  { name: "a folder skill", hash: "#/skill/handbook", waitFor: "Usage" },
  { name: "a blocked skill", hash: "#/skill/installer", waitFor: "Audit" },
];

/** Runs `board --open --port 0` with `PATH` only `bin`; resolves with its URL and the first stderr line that mentions `--open`. */
async function openWithout(
  target: ServerTarget,
  fixture: Fixture,
  bin: string,
): Promise<{ url: string; said: string }> {
  const proc = Bun.spawn([target.command, ...target.args, "--port", "0", "--open"], {
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: bin, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const firstLine = async (stream: ReadableStream<Uint8Array>, wanted: (line: string) => boolean) => {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      const line = text.split("\n").find((l, i, all) => i < all.length - 1 && wanted(l));
      if (line !== undefined) return line;
    }
    return `(ended without it) ${text}`;
  };
  try {
    const [url, said] = await Promise.all([
      firstLine(proc.stdout, () => true),
      firstLine(proc.stderr, (l) => l.includes("--open")),
    ]);
    return { url, said };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

/** `skill-central board` in a real browser (Debian's chromium through playwright-core), and its process. */
export function boardSuite(target: ServerTarget): void {
  describe(`the board's process, run as the servers are (${target.name})`, () => {
    test("--log-format json: every line on stderr is one JSON record; SIGTERM stops it with exit 0", async () => {
      const fixture = makeFixture(FILES);
      try {
        const board = await startBoard(target, fixture.cwd, fixture.home, ["--log-format", "json", "--no-watch"]);
        const code = await board.stop();
        expect({ code, stderr: board.stderr() }).toMatchObject({ code: 0 });
        const lines = board.stderr().trimEnd().split("\n");
        const records = lines.map((line) => JSON.parse(line) as { time: string; level: string; message: string });
        expect(records.map((r) => r.message)).toContain(
          `board at ${board.base} (this machine only; open the URL on stdout, which carries this run's token)`,
        );
        expect(records.filter((r) => typeof r.time !== "string" || !["info", "warn"].includes(r.level))).toEqual([]);
      } finally {
        fixture.cleanup();
      }
    });

    test("a port in use: exit 2 and the servers' message, before anything is printed", async () => {
      const fixture = makeFixture(FILES);
      const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
      try {
        const proc = Bun.spawn([target.command, ...target.args, "--port", String(taken.port)], {
          cwd: fixture.cwd,
          env: { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        const [code, stdout, stderr] = await Promise.all([
          proc.exited,
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
        ]);
        expect(code).toBe(2);
        expect(stdout).toBe("");
        expect(stderr).toContain(`port ${taken.port} on 127.0.0.1 is in use (choose another with --port`);
      } finally {
        await taken.stop(true);
        fixture.cleanup();
      }
    });
    for (const { kind, write, reason } of DAMAGE)
      test(`the usage views over ${kind} answer 200 with no data and the reason; the file is untouched`, async () => {
        const fixture = makeFixture(FILES);
        const store = join(fixture.home, "usage.db");
        write(store);
        const before = readFileSync(store);
        try {
          const board = await startBoard(target, fixture.cwd, fixture.home, ["--no-watch"]);
          try {
            const note = `usage store ~/usage.db cannot be read (${reason}): showing no history`;
            const get = async (path: string) => {
              const response = await fetch(new URL(path, board.base), { headers: board.authorized() });
              return { status: response.status, body: (await response.json()) as Record<string, unknown> };
            };
            expect(await get("api/usage")).toEqual({
              status: 200,
              // No skill is called unused: the store says nothing about what was used.
              body: { recording: true, days: 30, unused: [], unusedCount: 0, mostUsed: [], problem: note },
            });
            const skill = await get("api/usage/hello");
            expect(skill.status).toBe(200);
            expect(skill.body).toMatchObject({ recording: true, total: 0, clients: [], problem: note });
            expect((skill.body.buckets as number[]).every((n) => n === 0)).toBe(true);
            // The board goes on answering.
            expect((await fetch(new URL("api/summary", board.base), { headers: board.authorized() })).status).toBe(200);
          } finally {
            expect(await board.stop()).toBe(0);
          }
          expect(readFileSync(store).equals(before)).toBe(true);
        } finally {
          fixture.cleanup();
        }
      });
  });

  describe.skipIf(process.platform !== "linux")(`board --open without a browser (${target.name})`, () => {
    let fixture: Fixture;
    beforeAll(() => {
      fixture = makeFixture({ "skill-central.yaml": "builtin: false\n", "skills/x.yaml": FILES["skills/review.yaml"] });
      fixture.write("no-opener/.keep", "");
      // What xdg-open does on a machine with no desktop and no browser: exits 3, says nothing.
      fixture.write("silent-opener/xdg-open", "#!/bin/sh\nexit 3\n");
      chmodSync(join(fixture.cwd, "silent-opener/xdg-open"), 0o755);
    });
    afterAll(() => fixture?.cleanup());

    /** The URL as stderr names it: stderr is the log, and the token is only ever on stdout. */
    const elided = (url: string) => `${new URL(url).origin}/?token=…`;

    test("no opener at all: stderr says so, pointing at the URL on stdout, its token elided", async () => {
      const { url, said } = await openWithout(target, fixture, join(fixture.cwd, "no-opener"));
      expect(said).toBe(
        `board --open: could not open a browser (xdg-open was not found); open the URL on stdout (${elided(url)}) yourself`,
      );
    });

    test("an opener that finds no browser: stderr says how it failed, pointing at the URL on stdout", async () => {
      const { url, said } = await openWithout(target, fixture, join(fixture.cwd, "silent-opener"));
      expect(said).toBe(
        `board --open: could not open a browser (xdg-open exited with code 3); open the URL on stdout (${elided(url)}) yourself`,
      );
    });
  });

  describe.skipIf(!chromiumInstalled)(`board in a browser (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    let browser: Browser;
    let page: Page;
    const skills = () => page.getByRole("navigation", { name: "Skills" });
    const preview = () => page.getByRole("region", { name: "Preview" });
    const problems = () => page.getByRole("region", { name: "Problems" });
    const text = async (locator: Locator) => (await locator.textContent()) ?? "";
    const open = async (id: string) => {
      await skills().getByRole("link", { name: id, exact: true }).click();
      await page.getByRole("heading", { name: id, level: 2 }).waitFor();
    };

    beforeAll(async () => {
      fixture = makeFixture(FILES);
      seedUsage(fixture.home);
      [board, browser] = await Promise.all([startBoard(target, fixture.cwd, fixture.home), launchChromium()]);
      page = await browser.newPage();
      await page.goto(board.url);
      await page.waitForFunction(
        () =>
          (globalThis as unknown as { document: { body: { dataset: { version?: string } } } }).document.body.dataset
            .version !== undefined,
      );
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await board?.stop();
      fixture?.cleanup();
    });

    test("prints its URL, with this run's token, as the first line on stdout, on a free port of 127.0.0.1", () => {
      expect(board.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    });

    test("lists every served skill as a link named by its id", async () => {
      const names = await skills().getByRole("list").getByRole("link").allInnerTexts();
      expect(names).toEqual([
        "echo",
        "farewell",
        "handbook",
        "hello",
        "installer",
        "repeat",
        "review",
        "shout",
        "vendored",
        "whisper",
      ]);
    });

    test("a picked Audit filter holds across an edit on disk, through the new load's audit", async () => {
      await page.goto(new URL("#", board.base).href);
      const filter = page.getByRole("combobox", { name: "Audit" });
      try {
        await filter.selectOption({ label: "Blocked" });
        await skills().getByRole("link", { name: "echo", exact: true }).waitFor({ state: "detached" });
        const before = await shownVersion(page);
        fixture.write(
          "skills/installer.yaml",
          FILES["skills/installer.yaml"].replace("Installs the team's tools", "Installs every tool"),
        );
        await nextVersion(page, before);
        await skills().getByText("Installs every tool").waitFor();
        await skills().getByRole("link", { name: "echo", exact: true }).waitFor({ state: "detached" });
        expect(await skills().getByRole("list").getByRole("link").allInnerTexts()).toEqual(["installer"]);
        expect(await filter.inputValue()).toBe("block");
      } finally {
        await filter.selectOption({ label: "All skills" });
      }
    });

    test("a blocked skill's page shows its verdict and each finding as file:line:col, rule, severity, message and fix", async () => {
      await open("installer");
      const audit = page.getByRole("region", { name: "Audit" });
      await audit.getByText("blocked", { exact: true }).waitFor();
      const cli = Bun.spawn(
        [target.command, ...target.args.map((a) => (a === "board" ? "audit" : a)), "--format", "json"],
        { cwd: fixture.cwd, env: { HOME: fixture.home, PATH: process.env.PATH ?? "" }, stderr: "ignore" },
      );
      const reported = (
        JSON.parse(await new Response(cli.stdout).text()) as {
          skills: { id: string; layer: string; verdict: string; findings: AuditJsonFinding[] }[];
        }
      ).skills.find((s) => s.id === "installer" && s.layer === "team")!;
      expect(reported.verdict).toBe("block");
      const rows = await audit.getByRole("table", { name: "Audit findings" }).getByRole("row").allInnerTexts();
      expect(rows.slice(1).map((r) => r.split(/\s+/).join(" "))).toEqual(
        reported.findings.map((f) =>
          [`skills/${f.file}:${f.line}:${f.column}`, f.rule, f.severity, f.message, RULES_BY_ID.get(f.rule)!.fix]
            .join(" ")
            .split(/\s+/)
            .join(" "),
        ),
      );
      expect(rows[1]).toContain("skills/installer.yaml:7:3");
      expect(rows[1]).toContain("remote-code-pipe");
    });

    test("the Audit filter narrows the list to blocked skills, or to warned ones, each with its badge", async () => {
      await page.goto(new URL("#", board.base).href);
      const filter = page.getByRole("combobox", { name: "Audit" });
      const links = () => skills().getByRole("list").getByRole("link").allInnerTexts();
      try {
        await filter.selectOption({ label: "Blocked" });
        await skills().getByRole("link", { name: "echo", exact: true }).waitFor({ state: "detached" });
        expect(await links()).toEqual(["installer"]);
        expect(await text(skills().getByRole("listitem"))).toContain("blocked");
        await filter.selectOption({ label: "Warned" });
        await skills().getByRole("link", { name: "installer", exact: true }).waitFor({ state: "detached" });
        expect(await links()).toEqual(["vendored"]);
        expect(await text(skills().getByRole("listitem"))).toContain("warned");
      } finally {
        await filter.selectOption({ label: "All skills" });
      }
      await skills().getByRole("link", { name: "echo", exact: true }).waitFor();
      expect(await links()).toHaveLength(
        Object.keys(FILES).filter((f) => f.startsWith("skills/") && !f.includes("/references/")).length,
      );
    });

    test("the search box filters the list itself, ranked as find_skills ranks", async () => {
      await page.getByLabel("Search", { exact: true }).fill("greets");
      await skills().getByRole("link", { name: "echo", exact: true }).waitFor({ state: "detached" });
      expect(await skills().getByRole("list").getByRole("link").allInnerTexts()).toEqual(["hello"]);
      const query = "review tool";
      const find = Bun.spawn(
        [target.command, ...target.args.map((a) => (a === "board" ? "find" : a)), query, "--json", "--limit", "100"],
        { cwd: fixture.cwd, env: { HOME: fixture.home, PATH: process.env.PATH ?? "" }, stderr: "ignore" },
      );
      const ranked = (JSON.parse(await new Response(find.stdout).text()) as { skills: { name: string }[] }).skills;
      await page.getByLabel("Search", { exact: true }).fill(query);
      await skills().getByRole("link", { name: "hello", exact: true }).waitFor({ state: "detached" });
      expect(await skills().getByRole("list").getByRole("link").allInnerTexts()).toEqual(ranked.map((s) => s.name));
      expect(ranked.length).toBeGreaterThan(1);
      await page.getByLabel("Search", { exact: true }).fill("");
      await skills().getByRole("link", { name: "echo", exact: true }).waitFor();
    });

    test("provenance: the winner, and the candidate it shadows by layer and why", async () => {
      await open("review");
      const table = page.getByRole("table", { name: "Provenance" });
      expect(await text(table.getByRole("row").nth(1))).toContain("team");
      const shadowed = await text(table.getByRole("row").nth(2));
      expect(shadowed).toContain("personal");
      expect(shadowed).toContain('shadowed by skills/review.yaml: layer "team" has priority 50, above 10');
    });

    test("the Preview renders what prompts/get returns, following the input", async () => {
      await open("hello");
      await preview().getByText("who", { exact: false }).first().waitFor();
      await page.getByLabel("who", { exact: true }).fill("Ann");
      await preview().getByText("Hello Ann!", { exact: true }).waitFor();
      await page.getByLabel("who", { exact: true }).fill("Bo");
      await preview().getByText("Hello Bo!", { exact: true }).waitFor();
    });

    test("works from the keyboard: / searches, Tab reaches the skill's link, Enter opens it, Tab reaches its input", async () => {
      const focused = () =>
        page.evaluate(() => {
          const el = (globalThis as unknown as { document: { activeElement: Record<string, unknown> | null } }).document
            .activeElement;
          return { tag: String(el?.tagName ?? ""), text: String(el?.textContent ?? ""), id: String(el?.id ?? "") };
        });
      /** Presses Tab until `wanted` holds of the focused element (at most 40 times). */
      const tabTo = async (wanted: (f: { tag: string; text: string; id: string }) => boolean) => {
        for (let i = 0; i < 40; i++) {
          if (wanted(await focused())) return true;
          await page.keyboard.press("Tab");
        }
        return false;
      };
      await page.locator("body").click({ position: { x: 1, y: 1 } });
      await page.keyboard.press("/");
      expect(
        await page
          .getByLabel("Search", { exact: true })
          .evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement),
      ).toBe(true);
      await page.keyboard.type("greets");
      await skills().getByRole("link", { name: "echo", exact: true }).waitFor({ state: "detached" });
      expect(await tabTo((f) => f.tag === "A" && f.text === "hello")).toBe(true);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "hello", level: 2 }).waitFor();
      const input = page.getByLabel("who", { exact: true });
      const inputId = await input.getAttribute("id");
      expect(await tabTo((f) => f.tag === "INPUT" && f.id === inputId)).toBe(true);
      await page.keyboard.type("Kay");
      await preview().getByText("Hello Kay!", { exact: true }).waitFor();
      await page.getByLabel("Search", { exact: true }).fill("");
    });

    test("at 1,400 px a folder skill's Files table (long paths, SHA-256 digests) stays inside its card, clear of the client panel", async () => {
      await page.setViewportSize({ width: 1400, height: 900 });
      try {
        await page.getByLabel("Client", { exact: true }).selectOption({ label: "Cursor" });
        await page.getByRole("heading", { name: "As Cursor sees it" }).waitFor();
        await open("handbook");
        const files = page.getByRole("table", { name: "Files" });
        await files
          .getByText(/^[0-9a-f]{64}$/)
          .first()
          .waitFor();
        const box = async (locator: Locator) => (await locator.boundingBox())!;
        const [table, card, clientPanel] = await Promise.all([
          box(files),
          box(page.getByRole("region", { name: "Skill handbook" })),
          box(page.getByRole("region", { name: "Client view" })),
        ]);
        expect(table.x + table.width).toBeLessThanOrEqual(card.x + card.width);
        expect(card.x + card.width).toBeLessThanOrEqual(clientPanel.x);
        // Nothing inside the card is wider than the card: no cell runs out of it either.
        const overflow = await page
          .getByRole("region", { name: "Skill handbook" })
          .evaluate(
            (el) =>
              (el as unknown as { scrollWidth: number }).scrollWidth -
              (el as unknown as { clientWidth: number }).clientWidth,
          );
        expect(overflow).toBeLessThanOrEqual(0);
      } finally {
        await page.setViewportSize({ width: 1280, height: 720 });
      }
    });

    test("each example reads passed or failed, as skill-central test reports it", async () => {
      await open("hello");
      await page.getByRole("list", { name: "Examples" }).getByText("passed", { exact: true }).waitFor();
      await open("farewell");
      await page.getByRole("list", { name: "Examples" }).getByText("failed", { exact: true }).waitFor();
    });

    test("the client view lists exactly the tools that client gets from tools/list, with the tool cap", async () => {
      const client = page.getByLabel("Client", { exact: true });
      const tools = () => page.getByRole("list", { name: "Tools" }).getByRole("listitem").allInnerTexts();
      await client.selectOption({ label: "Cursor" });
      await page.getByRole("heading", { name: "As Cursor sees it" }).waitFor();
      const shown = (await tools()).map((t) => t.split(" — ")[0]);
      const mcp = await connect(
        { ...target, args: target.args.map((a) => (a === "board" ? "mcp" : a)) },
        fixture.cwd,
        fixture.home,
        [],
        "legacy",
        {
          name: "cursor-vscode",
        },
      );
      try {
        expect(shown).toEqual((await mcp.client.listTools()).tools.map((t) => t.name));
      } finally {
        await mcp.close();
      }
      expect(shown).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
      expect(await text(page.getByRole("region", { name: "Client view" }))).toContain("exceed toolCap 3");
      await client.selectOption({ label: "Claude Code" });
      await page.getByRole("heading", { name: "As Claude Code sees it" }).waitFor();
      expect((await tools()).map((t) => t.split(" — ")[0])).toEqual(["echo", "repeat", "shout", "whisper"]);
      expect(await text(page.getByLabel("Instructions", { exact: true }))).toContain("skill-central");
    });

    test("the client view's instructions are what a real cursor-vscode session gets from initialize, and describe its tools", async () => {
      const client = page.getByLabel("Client", { exact: true });
      await client.selectOption({ label: "Cursor" });
      await page.getByRole("heading", { name: "As Cursor sees it" }).waitFor();
      const shown = await text(page.getByLabel("Instructions", { exact: true }));
      // A fresh server: its initialize comes before the first load has finished.
      const mcp = await connect(
        { ...target, args: target.args.map((a) => (a === "board" ? "mcp" : a)) },
        fixture.cwd,
        fixture.home,
        [],
        "legacy",
        { name: "cursor-vscode" },
      );
      try {
        expect(shown).toBe(mcp.client.getInstructions() ?? "");
      } finally {
        await mcp.close();
      }
      // Its tools are the catalog's (four tool skills over its cap of 3): the instructions say how to use them.
      expect(shown).toContain("find_skills");
      expect(shown).toContain("run_skill_tool");
    });

    test("a SKILL.md body reads as a Markdown document, code highlighted, with a toggle to its source", async () => {
      await open("handbook");
      const doc = page.getByRole("document", { name: "Document" });
      await doc.getByRole("heading", { name: "The team handbook", level: 1 }).waitFor();
      expect(await doc.locator("strong").first().textContent()).toBe("handbook");
      // highlight.js marked up the bash block: its comment is a token of its own.
      expect(await doc.locator("pre code .hljs-comment").first().textContent()).toBe("# set up the tools");
      const toggle = page.getByRole("button", { name: "Show source" });
      expect(await toggle.getAttribute("aria-pressed")).toBe("false");
      await toggle.click();
      expect(await toggle.getAttribute("aria-pressed")).toBe("true");
      expect(await doc.isVisible()).toBe(false);
      expect(await text(page.getByLabel("Source", { exact: true }))).toContain("name: handbook");
      await toggle.click();
      await doc.waitFor({ state: "visible" });
    });

    test("raw HTML in a body is shown as text and never runs, even with the page's CSP bypassed", async () => {
      const context = await browser.newContext({ bypassCSP: true });
      try {
        const bare = await context.newPage();
        await bare.goto(new URL("#/skill/handbook", board.url).href);
        const doc = bare.getByRole("document", { name: "Document" });
        await doc.getByRole("heading", { name: "The team handbook" }).waitFor();
        const shown = await text(doc);
        for (const hostile of HOSTILE_HTML.slice(0, 2)) expect(shown).toContain(hostile);
        expect(await doc.locator("script, img, [onerror]").count()).toBe(0);
        expect(await doc.locator('a[href^="javascript:"]').count()).toBe(0);
        expect(await bare.evaluate(() => (globalThis as unknown as { pwned?: string }).pwned ?? "never ran")).toBe(
          "never ran",
        );
      } finally {
        await context.close();
      }
    });

    test("a skill's usage: total, uses per client, and a chart whose name says what it shows", async () => {
      await open("hello");
      const usage = page.getByRole("region", { name: "Usage" });
      await usage.getByText("5 uses", { exact: true }).waitFor();
      const chart = usage.getByRole("img");
      expect(await chart.getAttribute("aria-label")).toMatch(/^Uses of hello per day over the last 30 days: 5 in all/);
      expect(await chart.locator("rect").count()).toBe(5);
      const perClient = await usage.getByRole("table", { name: "Uses per client" }).getByRole("row").allInnerTexts();
      expect(perClient.slice(1).map((r) => r.split(/\s+/).join(" "))).toEqual(
        Object.entries(SEEDED_USES.hello).map(([client, uses]) => `${client} ${uses}`),
      );
    });

    test("the home view lists the skills unused for 30 days, from the usage store", async () => {
      await page.goto(new URL("#", board.base).href);
      const unused = page.getByRole("list", { name: "Unused for 30 days" });
      await unused.waitFor();
      const used = Object.keys(SEEDED_USES);
      expect(await unused.getByRole("link").allInnerTexts()).toEqual(
        Object.keys(FILES)
          .flatMap((f) => /^skills\/([a-z]+)(?:\.yaml|\/SKILL\.md)$/.exec(f)?.[1] ?? [])
          .filter((id) => !used.includes(id))
          .sort(),
      );
    });

    test("the picked client's cost in tokens is what skill-central budget counts, with the costliest skills", async () => {
      await page.getByLabel("Client", { exact: true }).selectOption({ label: "Cursor" });
      const cost = page.getByRole("region", { name: "Catalog cost" });
      await cost.waitFor();
      const budget = Bun.spawn(
        [
          target.command,
          ...target.args.map((a) => (a === "board" ? "budget" : a)),
          "--client",
          "cursor-vscode",
          "--json",
        ],
        { cwd: fixture.cwd, env: { HOME: fixture.home, PATH: process.env.PATH ?? "" }, stderr: "ignore" },
      );
      const counted = (
        JSON.parse(await new Response(budget.stdout).text()) as {
          clients: { tokens: number; skills: { id: string; tokens: number }[] }[];
        }
      ).clients[0]!;
      expect(await text(cost)).toContain(`${counted.tokens.toLocaleString("en-US")} tokens`);
      const rows = await cost.getByRole("table", { name: "Costliest skills" }).getByRole("row").allInnerTexts();
      expect(rows.slice(1).map((r) => r.split(/\s+/).join(" "))).toEqual(
        counted.skills.slice(0, 10).map((s) => `${s.id} ${s.tokens}`),
      );
      expect(await text(cost)).toMatch(/Competing skills/);
    });

    test("the theme follows prefers-color-scheme, and the toggle's choice persists across a reload", async () => {
      const context = await browser.newContext({ colorScheme: "dark" });
      try {
        const themed = await context.newPage();
        const theme = () =>
          themed.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document
                .documentElement.dataset.theme,
          );
        await themed.goto(board.url);
        const toggle = themed.getByRole("button", { name: "Dark theme" });
        await toggle.waitFor();
        expect(await theme()).toBe("dark");
        expect(await toggle.getAttribute("aria-pressed")).toBe("true");
        await toggle.click();
        expect(await theme()).toBe("light");
        await themed.reload();
        await toggle.waitFor();
        expect(await theme()).toBe("light");
        expect(await toggle.getAttribute("aria-pressed")).toBe("false");
      } finally {
        await context.close();
      }
    });

    for (const view of AXE_VIEWS)
      for (const theme of ["light", "dark"] as const)
        for (const width of [1024, 1440])
          test(`axe finds no serious or critical violation, and nothing overflows: ${view.name}, ${theme}, ${width} px`, async () => {
            // The page's CSP allows no inline script: axe is injected as one, so this context bypasses it.
            const context = await browser.newContext({
              colorScheme: theme,
              viewport: { width, height: 900 },
              bypassCSP: true,
            });
            try {
              const checked = await context.newPage();
              await checked.goto(new URL(view.hash, board.url).href);
              await checked.getByLabel("Client", { exact: true }).selectOption({ label: "Cursor" });
              await checked.getByRole("region", { name: "Catalog cost" }).waitFor();
              await checked.getByRole("region", { name: view.waitFor }).waitFor();
              const violations = await seriousViolations(checked);
              expect(violations).toEqual([]);
              const overflowing = await overflowingParts(checked);
              expect(overflowing).toEqual([]);
            } finally {
              await context.close();
            }
          });

    test("an edit on disk shows without a reload", async () => {
      await open("hello");
      await page.getByLabel("who", { exact: true }).fill("Ann");
      await preview().getByText("Hello Ann!", { exact: true }).waitFor();
      const before = await shownVersion(page);
      fixture.write("skills/hello.yaml", FILES["skills/hello.yaml"].replace("'Hello {{who}}!'", "'Hi {{who}}!'"));
      await nextVersion(page, before);
      await preview().getByText("Hi Ann!", { exact: true }).waitFor();
    });

    test("a broken file shows in Problems with file:line:col, and its last good version stays", async () => {
      await open("hello");
      const before = await shownVersion(page);
      fixture.write("skills/hello.yaml", "id: hello\ndescription: [unclosed\n");
      await nextVersion(page, before);
      const listed = await text(problems());
      expect(listed).toMatch(/skills\/hello\.yaml:\d+:\d+ error: /);
      await skills().getByRole("link", { name: "hello", exact: true }).waitFor();
      await page.getByLabel("who", { exact: true }).fill("Cy");
      await preview().getByText("Hi Cy!", { exact: true }).waitFor();
    });

    test("every data request answers 403 to a foreign Origin or Host", async () => {
      const paths = DATA_PATHS;
      for (const path of paths) {
        // With this run's token: the Host and Origin stages refuse before the token is looked at.
        const at = new URL(path, board.base);
        const foreign = await fetch(at, { headers: board.authorized({ Origin: "https://evil.example" }) });
        expect([path, foreign.status]).toEqual([path, 403]);
        const otherPort = await fetch(at, { headers: board.authorized({ Origin: "http://127.0.0.1:1" }) });
        expect([path, otherPort.status]).toEqual([path, 403]);
        const host = await fetch(at, { headers: board.authorized({ Host: "evil.example" }) });
        expect([path, host.status]).toEqual([path, 403]);
      }
      const render = await fetch(new URL("api/render/hello", board.base), {
        method: "POST",
        headers: board.authorized({ Origin: "https://evil.example", "Content-Type": "application/json" }),
        body: "{}",
      });
      expect(render.status).toBe(403);
      const own = await fetch(new URL("api/summary", board.base), {
        headers: board.authorized({ Origin: new URL(board.base).origin }),
      });
      expect(own.status).toBe(200);
    });

    test("a usage store damaged while the board runs: the home view and a skill's Usage show the reason", async () => {
      writeGarbageStore(join(fixture.home, "usage.db"));
      const note = "usage store ~/usage.db cannot be read (file is not a database): showing no history";
      await page.goto(new URL("#", board.url).href);
      // The home view asks for the usage when it is drawn: draw it again, whichever view was open.
      await page.reload();
      await page.getByRole("region", { name: "Unused skills" }).getByText(note, { exact: true }).waitFor();
      await open("hello");
      await page.getByRole("region", { name: "Usage" }).getByText(note, { exact: true }).waitFor();
    });
  });
}
