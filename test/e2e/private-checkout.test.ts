import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runBounded } from "../helpers/processes.ts";
import { releaseTestDir, snapshotCheckout } from "../helpers/release.ts";

/**
 * The suite from a clone in a private folder (`git clone` into `mktemp -d`, or under /root: mode
 * 0700), as .ci/run may run it. The hardening test that needs file modes to apply used to run the
 * source entry as the user `nobody`, who cannot read such a checkout: the server died with
 * `Module not found ".../src/cli.ts"`, the test hung to its timeout, and its wait failed later,
 * as an "unhandled error between tests". Run as root it matters most (CI containers): the case
 * then changes who runs the server.
 */
let root: string;
let checkout: string;

beforeAll(() => {
  root = releaseTestDir("private-checkout");
  const privateDir = join(root, "private");
  mkdirSync(privateDir);
  checkout = snapshotCheckout(join(privateDir, "checkout"));
  chmodSync(privateDir, 0o700);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("the unreadable-folder hardening test passes in a checkout only its owner can read", async () => {
  const run = await runBounded(
    [process.execPath, "test", "test/e2e/hardening.test.ts", "-t", "hardening \\(source\\) 2\\. "],
    {
      cwd: checkout,
      env: { ...process.env, NO_COLOR: "1" },
      timeoutMs: 110_000,
    },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect(output).not.toContain("Module not found");
  expect(output).toMatch(/^\(pass\) hardening \(source\) > 2\. /m);
  expect(output).toMatch(/^\s*1 pass$/m);
  expect(output).toMatch(/^\s*0 fail$/m);
  expect(run.code).toBe(0);
}, 120_000);
