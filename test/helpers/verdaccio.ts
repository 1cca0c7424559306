import { freePort } from "./free-port.ts";
import type { Subprocess } from "bun";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exitedWithin, killGroup, runBounded } from "./processes.ts";
import { REPO_ROOT } from "./server.ts";

/**
 * A real npm registry for the release tests: Verdaccio, pinned in .ci/tools/package.json (with its
 * lockfile) and installed by .ci/run (`npm ci --prefix .ci/tools`). It serves the `skill-central*`
 * packages that the tests publish, accepts anonymous publishing of those only, and proxies every
 * other package to the public registry.
 */
export const VERDACCIO_BIN = join(REPO_ROOT, ".ci", "tools", "node_modules", "verdaccio", "bin", "verdaccio");
export const VERDACCIO_INSTALL = "npm ci --prefix .ci/tools";

export function verdaccioInstalled(): boolean {
  return existsSync(VERDACCIO_BIN);
}

export interface Registry {
  url: string;
  /** `//127.0.0.1:<port>/`, the key npm uses for per-registry settings such as a token. */
  nerfDart: string;
  log(): string;
  stop(): Promise<void>;
}

/** The registry the machine's npm uses (a mirror, if one is configured), for Verdaccio's uplink. */
async function upstreamRegistry(): Promise<string> {
  const fromEnv = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  if (fromEnv) return fromEnv;
  const result = await runBounded(["npm", "config", "get", "registry"], {
    cwd: REPO_ROOT,
    env: process.env,
    timeoutMs: 30_000,
  });
  const url = result.stdout.trim();
  return result.code === 0 && /^https?:\/\//.test(url) ? url : "https://registry.npmjs.org/";
}

function config(storage: string, upstream: string): string {
  return `# Written by test/helpers/verdaccio.ts for one test run.
storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(join(storage, "htpasswd"))}
    max_users: -1
uplinks:
  npmjs:
    url: ${JSON.stringify(upstream)}
    timeout: 60s
packages:
  "skill-central*":
    access: $all
    publish: $anonymous
    unpublish: $anonymous
  "@*/*":
    access: $all
    proxy: npmjs
  "**":
    access: $all
    proxy: npmjs
# The platform packages hold a ~110 MB binary (~55 MB gzipped, base64 in the publish request).
max_body_size: 300mb
web:
  enable: false
log: { type: stdout, format: json, level: warn }
`;
}

async function waitUntilUp(proc: Subprocess, url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) return false;
    try {
      const response = await fetch(`${url}-/ping`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(100);
  }
  return false;
}

/** Starts Verdaccio on 127.0.0.1 with its storage and config under `dir`; `stop()` ends it. */
export async function startVerdaccio(dir: string): Promise<Registry> {
  const storage = join(dir, "storage");
  mkdirSync(storage, { recursive: true });
  const configFile = join(dir, "config.yaml");
  writeFileSync(configFile, config(storage, await upstreamRegistry()));

  let lastLog = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = freePort();
    const url = `http://127.0.0.1:${port}/`;
    const proc = Bun.spawn(["node", VERDACCIO_BIN, "--config", configFile, "--listen", `127.0.0.1:${port}`], {
      cwd: dir,
      // The machine's environment, for reaching the upstream registry as npm does here (CA
      // certificates, proxies); only HOME is its own.
      env: { ...process.env, HOME: dir, NODE_NO_WARNINGS: "1" },
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    let log = "";
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of proc.stdout) log += decoder.decode(chunk, { stream: true });
    })();
    void (async () => {
      for await (const chunk of proc.stderr) log += decoder.decode(chunk, { stream: true });
    })();
    if (await waitUntilUp(proc, url, 30_000)) {
      return {
        url,
        nerfDart: `//127.0.0.1:${port}/`,
        log: () => log,
        async stop() {
          killGroup(proc, "SIGTERM");
          // exitedWithin kills the group with SIGKILL if SIGTERM is not enough.
          await exitedWithin(proc, 5_000, "verdaccio").catch(() => undefined);
        },
      };
    }
    killGroup(proc);
    await proc.exited;
    lastLog = log;
  }
  throw new Error(`Verdaccio did not start (3 attempts):\n${lastLog}`);
}
