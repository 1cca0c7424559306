import type { Subprocess } from "bun";
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import type { ServerTarget } from "./server.ts";

/** Debian's chromium, which .ci/run installs. */
export const CHROMIUM = "/usr/bin/chromium";
export const chromiumInstalled = existsSync(CHROMIUM);

export interface RunningBoard {
  /** The first line on stdout: `http://127.0.0.1:PORT/?token=…`, the URL a browser opens. */
  url: string;
  /** `http://127.0.0.1:PORT/`: the URL without its token, to build the paths a test fetches. */
  base: string;
  /** This run's token, from the printed URL. */
  token: string;
  /** Headers that let a script (a test's fetch) read the board: `Authorization: Bearer <token>`, and `extra`. */
  authorized(extra?: Record<string, string>): Record<string, string>;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  stderr: () => string;
  /** SIGTERM (unless it has exited), then its exit code once stderr is read to the end. */
  stop(): Promise<number>;
}

/** `skill-central board --port 0` (and `args`, and `env` over the defaults) in `cwd` with an isolated HOME; resolves with the URL it prints first. */
export async function startBoard(
  target: ServerTarget,
  cwd: string,
  home: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<RunningBoard> {
  const proc = Bun.spawn([target.command, ...target.args, "--port", "0", ...args], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const stderrRead = (async () => {
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the board exited (${await proc.exited}) before printing its URL:\n${stderr}`);
    out += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  const url = out.slice(0, out.indexOf("\n"));
  const printed = new URL(url);
  const token = printed.searchParams.get("token") ?? "";
  return {
    url,
    base: `${printed.origin}/`,
    token,
    authorized: (extra = {}) => ({ Authorization: `Bearer ${token}`, ...extra }),
    proc,
    stderr: () => stderr,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      const code = await proc.exited;
      await stderrRead;
      return code;
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/** What the page's scripts see, typed here without the DOM library (the tests' own code runs in Bun). */
type PageGlobals = { document: { body: { dataset: Record<string, string | undefined> } } };

/** The load the page shows (it sets `data-version` on <body> after drawing each). */
export async function shownVersion(page: Page): Promise<number> {
  return Number(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.dataset.version ?? "0"));
}

/** Waits for the page to draw a load after `version`: the page's own signal, not a sleep. */
export async function nextVersion(page: Page, version: number): Promise<number> {
  await page.waitForFunction(
    (v) => Number((globalThis as unknown as PageGlobals).document.body.dataset.version ?? "0") > v,
    version,
    { timeout: 10_000 },
  );
  return shownVersion(page);
}
