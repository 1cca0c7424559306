import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * Imports point one way: each stage may import its own modules and those of lower stages, never
 * a higher stage nor a peer at the same rank. Storage knows nothing of MCP; the registry knows
 * nothing of files or transports; the adapters (MCP, CLI commands, the API) sit on top.
 */
const STAGES: readonly (readonly string[])[] = [
  ["base"], // diagnostics.ts, errors.ts, version.ts, stdio-guard.ts
  ["storage"],
  ["config"],
  ["audit"], // what a skill's files hold: rules, the scan, verdicts, the sync gate (no skills, no MCP)
  ["sources"], // where a layer's files come from: git layers fetched, verified and copied
  ["skill"],
  ["registry"],
  ["load"],
  ["invoke"],
  ["examples"],
  ["reload"],
  ["mcp", "cli-output", "install"], // install: IDE configs, beside the other adapters' helpers
  ["board"], // the web board: an adapter over the same skills, showing what the MCP server serves
  ["serve"], // the serving processes (stdio, HTTP, the board): start-up, the operator's log, GC policy, signals and drain
  ["evaluate"], // eval --model: the catalog served in-process to a model, its wire adapters, grading and recordings
  ["commands", "api"],
  ["cli"],
];

const SRC = join(import.meta.dir, "..", "..", "src");

function stageOf(file: string): string {
  const rel = relative(SRC, file);
  const top = rel.split("/")[0]!;
  if (rel === "cli.ts") return "cli";
  if (rel === "api.ts") return "api";
  if (!rel.includes("/")) return "base";
  return top;
}

function rankOf(stage: string): number {
  const rank = STAGES.findIndex((s) => s.includes(stage));
  if (rank < 0) throw new Error(`src/${stage}/ has no place in the stage order of this test: add it`);
  return rank;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  // Only modules: `../package.json` (the version) is data.
  return [...text.matchAll(IMPORT)]
    .map((m) => resolve(dirname(file), (m[1] ?? m[2])!))
    .filter((t) => t.endsWith(".ts"));
}

const files = [...new Glob("**/*.ts").scanSync({ cwd: SRC })].map((f) => join(SRC, f)).sort();
const graph = new Map(files.map((f) => [f, importsOf(f)]));

/** Every module `entries` (under src/) import at start: static imports followed, `import type` and `import()` not. */
function staticallyReached(entries: readonly string[]): string[] {
  const STATIC = /(?:^|\n)\s*(?:import|export)\s(?!type\b)[^;]*?from\s*["'](\.{1,2}\/[^"']+\.ts)["']/g;
  const reached = new Set<string>();
  const walk = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(STATIC)) walk(resolve(dirname(file), m[1]!));
  };
  for (const entry of entries) walk(join(SRC, entry));
  return [...reached].map((f) => relative(SRC, f));
}

describe("source architecture", () => {
  test("every import from src/ names a file that exists inside src/", () => {
    const broken = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${relative(SRC, file)} → ${relative(SRC, t)}`),
    );
    expect(broken).toEqual([]);
  });

  test("no module imports from a higher stage or from a peer stage", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = stageOf(file);
      for (const target of targets) {
        const to = stageOf(target);
        if (to === from) continue;
        if (rankOf(to) >= rankOf(from))
          upward.push(`${relative(SRC, file)} (${from}) → ${relative(SRC, target)} (${to})`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("the import graph has no cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, "open");
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === "open")
          cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(SRC, f)).join(" → "));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  test("the serving processes' start-up loads no audit module: the gate and its rules are imported when a git layer that follows a ref, or a locked copy that is missing, first needs them", () => {
    const loaded = staticallyReached(["serve/stdio.ts", "serve/http.ts", "serve/board.ts"]);
    // The walk does see the server's modules (the loader among them), so an empty answer below means something.
    expect(loaded).toContain("load/load-skills.ts");
    const lazy = ["sources/refresh.ts", "sources/fetch-missing.ts", "sources/sync.ts"];
    expect(loaded.filter((f) => f.startsWith("audit/") || lazy.includes(f))).toEqual([]);
  });

  test("the serving processes' start-up loads no store module: the usage store is imported on the first use, the admin log's poll when a load first obeys it", () => {
    const loaded = staticallyReached(["serve/stdio.ts", "serve/http.ts"]);
    expect(loaded).toContain("serve/usage-log.ts");
    const lazy = [
      "storage/usage-store.ts",
      "storage/usage-sqlite.ts",
      "storage/usage-postgres.ts",
      "storage/usage-report.ts",
      "storage/admin-log-store.ts",
      "reload/admin-log-poll.ts",
    ];
    expect(loaded.filter((f) => lazy.includes(f))).toEqual([]);
  });

  test("the stage rule can fail: an upward import is detected", () => {
    expect(rankOf(stageOf(join(SRC, "storage", "x.ts")))).toBeLessThan(rankOf(stageOf(join(SRC, "mcp", "y.ts"))));
    expect(stageOf(join(SRC, "cli.ts"))).toBe("cli");
    expect(stageOf(join(SRC, "errors.ts"))).toBe("base");
  });
});

describe("MCP SDK packages", () => {
  const REPO = join(SRC, "..");
  const SDK_IMPORT = /(?:from|import)\s*\(?\s*["'](@modelcontextprotocol\/[^"'/]+)/g;

  test("only the v2 packages are imported (server and core in src/, the client in src/install/ — the install check — src/evaluate/ — eval --model's in-process client — tests and the bench)", () => {
    const offenders: string[] = [];
    for (const folder of ["src", "test", "bench", "script"]) {
      for (const file of new Glob("**/*.ts").scanSync({ cwd: join(REPO, folder) })) {
        const text = readFileSync(join(REPO, folder, file), "utf8");
        for (const [, pkg] of text.matchAll(SDK_IMPORT)) {
          const allowed =
            folder === "src" && !file.startsWith("install/") && !file.startsWith("evaluate/")
              ? ["@modelcontextprotocol/server", "@modelcontextprotocol/core"]
              : ["@modelcontextprotocol/server", "@modelcontextprotocol/core", "@modelcontextprotocol/client"];
          if (!allowed.includes(pkg!)) offenders.push(`${folder}/${file}: ${pkg}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  test("the client is loaded only by `install` (and `uninstall`, which shares its confirmation) and `eval --model`, imported when run: never on the server's start-up", () => {
    const STATIC = /(?:^|\n)\s*(?:import|export)\s(?!type\b)[^;]*?from\s*["']([^"']+)["']/g;
    const memo = new Map<string, boolean>();
    const reachesClient = (file: string): boolean => {
      if (!memo.has(file)) {
        const specs = [...readFileSync(file, "utf8").matchAll(STATIC)].map((m) => m[1]!);
        memo.set(
          file,
          specs.some(
            (s) =>
              s === "@modelcontextprotocol/client" ||
              (s.startsWith(".") && s.endsWith(".ts") && reachesClient(resolve(dirname(file), s))),
          ),
        );
      }
      return memo.get(file)!;
    };
    const loaders = files.filter(reachesClient).map((f) => relative(SRC, f));
    expect(loaders).toContain("install/check.ts");
    expect(loaders.filter((f) => !f.startsWith("install/") && !f.startsWith("evaluate/"))).toEqual([
      "commands/install.ts",
      "commands/support/model-eval.ts",
      "commands/uninstall.ts",
    ]);
  });

  test("package.json depends on the v2 packages, not on @modelcontextprotocol/sdk", async () => {
    const pkg = (await Bun.file(join(REPO, "package.json")).json()) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(
      expect.arrayContaining(["@modelcontextprotocol/server", "@modelcontextprotocol/core"]),
    );
    expect(pkg.dependencies["@modelcontextprotocol/client"]).toBeDefined(); // install's check ships in the binary
    expect(pkg.dependencies["@modelcontextprotocol/sdk"]).toBeUndefined();
    expect(pkg.devDependencies["@modelcontextprotocol/sdk"]).toBeUndefined();
  });
});
