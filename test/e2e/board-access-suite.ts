/**
 * Who may read the board, and what its responses forbid (issue 46 item 10): each run's token,
 * the cookie it becomes, the refusals without it, the headers that forbid framing, and a log
 * that never shows the token. Run against the source entry and the compiled binary
 * (board-source.test.ts, board-binary.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, watch } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { BOARD_FILES, DATA_PATHS } from "../helpers/board-fixture.ts";
import { chromiumInstalled, launchChromium, type RunningBoard, startBoard } from "../helpers/board.ts";
import { type Fixture, makeFixture } from "../helpers/fixture.ts";
import type { ServerTarget } from "../helpers/server.ts";

type PageGlobals = { document: { body: { dataset: Record<string, string | undefined> }; cookie: string } };

/** The headers every answer must carry, whatever it is. */
function expectSecured(what: string, response: Response): void {
  const csp = response.headers.get("content-security-policy") ?? "";
  expect({ what, frameAncestors: csp.includes("frame-ancestors 'none'") }).toEqual({ what, frameAncestors: true });
  expect({ what, scripts: csp.includes("script-src 'self'") }).toEqual({ what, scripts: true });
  expect({ what, xfo: response.headers.get("x-frame-options") }).toEqual({ what, xfo: "DENY" });
  expect({ what, referrer: response.headers.get("referrer-policy") }).toEqual({ what, referrer: "no-referrer" });
}

/** The page's script and style, as its HTML names them. */
async function pageAssets(board: RunningBoard): Promise<string[]> {
  const html = await (await fetch(board.base, { headers: board.authorized() })).text();
  return [...html.matchAll(/(?:src|href)="\.?(\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
}

/** Reads a response body (an event stream included) only as far as needed, then lets it go. */
async function drop(response: Response): Promise<void> {
  await response.body?.cancel();
}

export function boardAccessSuite(target: ServerTarget): void {
  describe(`the board's token and headers (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    beforeAll(async () => {
      fixture = makeFixture(BOARD_FILES);
      board = await startBoard(target, fixture.cwd, fixture.home, ["--no-watch"]);
    }, 60_000);
    afterAll(async () => {
      await board?.stop();
      fixture?.cleanup();
    });

    test("each run's token is 256 random bits, base64url, in the printed URL's ?token=", () => {
      expect(board.url).toBe(`${board.base}?token=${board.token}`);
      expect(board.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    test("every answer carries the CSP with frame-ancestors 'none', X-Frame-Options DENY and Referrer-Policy no-referrer: the page, its files, data, refusals, redirects and errors", async () => {
      const assets = await pageAssets(board);
      expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
      expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
      const url = (path: string) => new URL(path, board.base);
      const answers: [string, number, Response][] = [
        ["the page", 200, await fetch(board.base, { headers: board.authorized() })],
        ...(await Promise.all(
          assets.map(
            async (a): Promise<[string, number, Response]> => [
              a,
              200,
              await fetch(url(a), { headers: board.authorized() }),
            ],
          ),
        )),
        [
          "a file the browser holds (304)",
          304,
          await fetch(url(assets[0]!), {
            headers: board.authorized({
              "If-None-Match":
                (await fetch(url(assets[0]!), { headers: board.authorized() })).headers.get("etag") ?? "",
            }),
          }),
        ],
        ["data", 200, await fetch(url("api/summary"), { headers: board.authorized() })],
        ["the event stream", 200, await fetch(url("api/events"), { headers: board.authorized() })],
        ["an unknown skill", 404, await fetch(url("api/skill/nope"), { headers: board.authorized() })],
        ["an unknown path", 404, await fetch(url("nope"), { headers: board.authorized() })],
        ["no token", 401, await fetch(url("api/summary"))],
        ["no token, the page", 401, await fetch(board.base)],
        ["a wrong token", 403, await fetch(url("?token=wrong"), { redirect: "manual" })],
        ["the token's redirect", 303, await fetch(board.url, { redirect: "manual" })],
        [
          "a foreign Origin",
          403,
          await fetch(url("api/summary"), { headers: board.authorized({ Origin: "https://evil.example" }) }),
        ],
      ];
      for (const [what, status, response] of answers) {
        expect({ what, status: response.status }).toEqual({ what, status });
        expectSecured(what, response);
        await drop(response);
      }
    });

    test("without a cookie or the token, the page and every data path answer 401 saying to open the printed URL", async () => {
      for (const path of DATA_PATHS) {
        const response = await fetch(new URL(path, board.base));
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
        expect(((await response.json()) as { error: string }).error).toContain(
          "open the URL `skill-central board` printed",
        );
      }
      const render = await fetch(new URL("api/render/hello", board.base), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"arguments":{"who":"Ann"}}',
      });
      expect(render.status).toBe(401);
      const assets = await pageAssets(board);
      for (const path of ["", ...assets]) {
        const response = await fetch(new URL(path, board.base));
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
        const text = await response.text();
        if (path === "") {
          expect(response.headers.get("content-type")).toStartWith("text/html");
          expect(text).toContain("Open the link the board printed");
          expect(text).toContain("?token=…");
        }
        expect(text).not.toContain(board.token);
      }
    });

    test("a wrong token is refused: 403 in the URL (never redirected, no cookie), 401 as a cookie or a bearer header", async () => {
      // One character off: same length, same alphabet.
      const last = board.token.at(-1) === "A" ? "B" : "A";
      const near = `${board.token.slice(0, -1)}${last}`;
      for (const wrong of [near, "wrong", ""]) {
        const inUrl = await fetch(new URL(`?token=${encodeURIComponent(wrong)}`, board.base), { redirect: "manual" });
        expect({ wrong, status: inUrl.status, cookie: inUrl.headers.get("set-cookie") }).toEqual({
          wrong,
          status: 403,
          cookie: null,
        });
        expect(await inUrl.text()).not.toContain(board.token);
        const onData = await fetch(new URL(`api/summary?token=${encodeURIComponent(wrong)}`, board.base), {
          redirect: "manual",
        });
        expect({ wrong, status: onData.status }).toEqual({ wrong, status: 403 });
      }
      const port = new URL(board.base).port;
      const cookie = await fetch(new URL("api/summary", board.base), {
        headers: { Cookie: `skill-central-board-${port}=${near}` },
      });
      expect(cookie.status).toBe(401);
      const bearer = await fetch(new URL("api/summary", board.base), { headers: { Authorization: `Bearer ${near}` } });
      expect(bearer.status).toBe(401);
    });

    test("the printed URL sets an HttpOnly, SameSite=Strict, Path=/ cookie (not Secure) and redirects to the same URL without the token", async () => {
      const opened = await fetch(board.url, { redirect: "manual" });
      expect(opened.status).toBe(303);
      expect(opened.headers.get("location")).toBe("/");
      const port = new URL(board.base).port;
      expect(opened.headers.get("set-cookie")).toBe(
        `skill-central-board-${port}=${board.token}; HttpOnly; SameSite=Strict; Path=/`,
      );
      // Another query and a data path: only the token is taken out.
      const deep = await fetch(new URL(`api/search?q=greets&token=${board.token}`, board.base), { redirect: "manual" });
      expect(deep.status).toBe(303);
      expect(deep.headers.get("location")).toBe("/api/search?q=greets");
      // The token only opens a page: a POST carrying it in the URL is refused, not turned into a GET.
      const posted = await fetch(new URL(`api/render/hello?token=${board.token}`, board.base), {
        method: "POST",
        body: "{}",
        redirect: "manual",
      });
      expect(posted.status).toBe(403);
    });

    test("with the cookie the redirect set, the page, its files and every data path answer", async () => {
      const opened = await fetch(board.url, { redirect: "manual" });
      const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0]!;
      expect(cookie).toContain(board.token);
      // Beside another program's cookie, as a browser sends them.
      const headers = { Cookie: `other=1; ${cookie}; theme=dark` };
      for (const path of ["", ...(await pageAssets(board)), ...DATA_PATHS]) {
        const response = await fetch(new URL(path, board.base), { headers });
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        await drop(response);
      }
      const render = await fetch(new URL("api/render/hello", board.base), {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: '{"arguments":{"who":"Ann"}}',
      });
      expect(await render.json()).toEqual({ ok: true, text: "Hello Ann!" });
    });

    test("another page's request (Sec-Fetch-Site same-site or cross-site) may open the page but not load its data or frame it", async () => {
      const fromSite = (site: string, mode: string, dest: string) =>
        board.authorized({ "Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest });
      for (const site of ["same-site", "cross-site"]) {
        const data = await fetch(new URL("api/summary", board.base), { headers: fromSite(site, "no-cors", "script") });
        expect({ site, status: data.status }).toEqual({ site, status: 403 });
        const framed = await fetch(board.base, { headers: fromSite(site, "navigate", "iframe") });
        expect({ site, status: framed.status }).toEqual({ site, status: 403 });
        const link = await fetch(board.base, { headers: fromSite(site, "navigate", "document") });
        expect({ site, status: link.status }).toEqual({ site, status: 200 });
      }
      const own = await fetch(new URL("api/summary", board.base), {
        headers: fromSite("same-origin", "cors", "empty"),
      });
      expect(own.status).toBe(200);
    });

    test("the token reaches no log line, in either log format; a second run has its own token and refuses the first's cookie", async () => {
      const second = await startBoard(target, fixture.cwd, fixture.home, ["--no-watch", "--log-format", "json"]);
      try {
        expect(second.token).not.toBe(board.token);
        const port = new URL(second.base).port;
        const stale = await fetch(new URL("api/summary", second.base), {
          headers: { Cookie: `skill-central-board-${port}=${board.token}` },
        });
        expect(stale.status).toBe(401);
        // Requests that carry each token in every place one can be: the URL, a cookie, a header.
        for (const run of [board, second]) {
          await drop(await fetch(run.url, { redirect: "manual" }));
          await drop(await fetch(new URL(`api/summary?token=${run.token}`, run.base), { redirect: "manual" }));
          await drop(await fetch(new URL(`api/nope?token=${run.token}x`, run.base)));
          await drop(await fetch(new URL("api/summary", run.base), { headers: run.authorized() }));
        }
      } finally {
        await second.stop();
      }
      const logs = [board.stderr(), second.stderr()];
      expect(logs[0]).toContain(`board at ${board.base}`);
      expect(logs[1]).toContain(`board at ${second.base}`);
      for (const log of logs) {
        expect(log).not.toContain(board.token);
        expect(log).not.toContain(second.token);
      }
    });
  });

  describe.skipIf(!chromiumInstalled)(`the board's token and framing in a browser (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    let browser: Browser;
    beforeAll(async () => {
      fixture = makeFixture(BOARD_FILES);
      [board, browser] = await Promise.all([
        startBoard(target, fixture.cwd, fixture.home, ["--no-watch"]),
        launchChromium(),
      ]);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await board?.stop();
      fixture?.cleanup();
    });

    test("the printed URL opens the page at the URL without the token, and the page's script cannot read the cookie", async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(new URL("#/skill/hello", board.url).href);
        await page.waitForFunction(
          () => (globalThis as unknown as PageGlobals).document.body.dataset.version !== undefined,
        );
        await page.getByRole("heading", { name: "hello", level: 2 }).waitFor();
        expect(page.url()).toBe(`${board.base}#/skill/hello`);
        expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.cookie)).toBe("");
        const cookies = await context.cookies(board.base);
        expect(
          cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, secure: c.secure })),
        ).toEqual([
          {
            name: `skill-central-board-${new URL(board.base).port}`,
            httpOnly: true,
            sameSite: "Strict",
            secure: false,
          },
        ]);
        // A reload (the cookie, no token) draws it again.
        await page.reload();
        await page.getByRole("heading", { name: "hello", level: 2 }).waitFor();
      } finally {
        await context.close();
      }
    });

    test("the printed URL followed from another site's page (a Strict cookie does not follow a redirect another site started) still opens the board", async () => {
      // localhost and 127.0.0.1 are different sites.
      const site = Bun.serve({
        hostname: "localhost",
        port: 0,
        fetch: () =>
          new Response(`<!doctype html><a href="${board.url}">the board</a>`, {
            headers: { "Content-Type": "text/html" },
          }),
      });
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`http://localhost:${site.port}/`);
        await page.getByRole("link", { name: "the board" }).click();
        await page.getByRole("navigation", { name: "Skills" }).getByRole("link", { name: "hello" }).waitFor();
        expect(page.url()).toBe(board.base);
      } finally {
        await context.close();
        await site.stop(true);
      }
    });

    test("without the token, the browser gets the page saying to open the printed URL, and no skill", async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const response = await page.goto(board.base);
        expect(response?.status()).toBe(401);
        await page.getByRole("heading", { name: "Open the link the board printed" }).waitFor();
        expect(await page.getByRole("navigation", { name: "Skills" }).count()).toBe(0);
      } finally {
        await context.close();
      }
    });

    test("a page of another origin that frames the board shows nothing of it (a framable page beside it does show)", async () => {
      const framer = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) =>
          new URL(request.url).pathname === "/inner"
            ? new Response("<!doctype html><p>framable</p>", { headers: { "Content-Type": "text/html" } })
            : new Response(
                `<!doctype html><iframe name="board" src="${board.base}"></iframe><iframe name="inner" src="/inner"></iframe>`,
                { headers: { "Content-Type": "text/html" } },
              ),
      });
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        // This browser holds the board's cookie: only the board's headers keep it out of the frame.
        await page.goto(board.url);
        await page.getByRole("navigation", { name: "Skills" }).waitFor();
        // goto resolves on the framer's load event, which waits for both frames to finish.
        await page.goto(`http://127.0.0.1:${framer.port}/`);
        const inner = page.frame({ name: "inner" })!;
        expect(await inner.locator("p").textContent()).toBe("framable");
        const framed = page.frame({ name: "board" })!;
        expect(framed.url()).not.toStartWith(board.base);
        expect(await framed.locator("text=skill-central").count()).toBe(0);
        expect(await framed.getByRole("navigation", { name: "Skills" }).count()).toBe(0);
      } finally {
        await context.close();
        await framer.stop(true);
      }
    });
  });

  describe.skipIf(!chromiumInstalled || process.platform !== "linux")(
    `board --open hands the opener a private file (${target.name})`,
    () => {
      test("the token is in no opener's arguments; the 0600 file it gets opens the board in chromium, and goes when the board stops", async () => {
        const fixture = makeFixture(BOARD_FILES);
        const browser = await launchChromium();
        let board: RunningBoard | undefined;
        try {
          // An opener that records what it was given: written aside, then renamed in, so the watch sees it whole.
          const seen = join(fixture.cwd, "seen");
          mkdirSync(seen);
          fixture.write(
            "opener/xdg-open",
            `#!/bin/sh\nprintf '%s' "$1" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}/opened'\n`,
          );
          chmodSync(join(fixture.cwd, "opener/xdg-open"), 0o755);
          const opened = new Promise<string>((resolve) => {
            const watcher = watch(seen, () => {
              if (!existsSync(join(seen, "opened"))) return;
              watcher.close();
              resolve(readFileSync(join(seen, "opened"), "utf8"));
            });
          });
          board = await startBoard(target, fixture.cwd, fixture.home, ["--no-watch", "--open"], {
            PATH: `${join(fixture.cwd, "opener")}:/usr/bin:/bin`,
          });
          const given = await opened;
          expect(given).not.toContain(board.token);
          expect(statSync(given).mode & 0o777).toBe(0o600);
          expect(readFileSync(given, "utf8")).toContain(board.url);
          const page = await browser.newPage();
          await page.goto(`file://${given}`);
          await page.waitForFunction(
            () => (globalThis as unknown as PageGlobals).document.body.dataset.version !== undefined,
          );
          expect(page.url()).toBe(board.base);
          expect(await board.stop()).toBe(0);
          expect(existsSync(given)).toBe(false);
          expect(board.stderr()).not.toContain(board.token);
        } finally {
          await browser.close();
          await board?.stop();
          fixture.cleanup();
        }
      }, 60_000);
    },
  );
}
