/**
 * Issue 47, item 5, as a script the lead re-runs on the merged tree: groups the catalog and its
 * budget (what a client is sent, its cost, the token budget, the clients we know, the tokenizer) in
 * src/mcp/catalog/, and gives a second name to each basename that meant two things (gate.ts,
 * digest.ts, caller.ts, verdict.ts). A script rather than a commit because other branches edit
 * the same files: `git mv` on the merged tree keeps their edits.
 *
 * Every relative import in src/, test/, bench/ and script/ that named a moved file is re-pointed
 * (each specifier resolved to a file, mapped old → new, made relative again), and so is every
 * `src/…` path in the docs and comments. Idempotent: a move already made is skipped, and an import
 * that already resolves to a file is left alone, so a second run changes nothing.
 *
 *   bun script/group-mcp.ts          # move and rewrite
 *   bun script/group-mcp.ts --check  # exit 1 if anything is left to do
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

/** Old → new, relative to the repository. */
const MOVES: readonly (readonly [string, string])[] = [
  // The catalog: which tools a client is offered, the three catalog tools, what it is sent, its token budget.
  ["src/mcp/catalog-mode.ts", "src/mcp/catalog/mode.ts"],
  ["src/mcp/catalog-tools.ts", "src/mcp/catalog/catalog-tools.ts"],
  ["src/mcp/catalog-cost.ts", "src/mcp/catalog/sent-parts.ts"],
  ["src/mcp/catalog-budget.ts", "src/mcp/catalog/token-budget.ts"],
  // What `skill-central budget` (commands/budget.ts) and the board show: a client's cost against its budget.
  ["src/mcp/client-cost.ts", "src/mcp/catalog/budget.ts"],
  ["src/mcp/client-budgets.ts", "src/mcp/catalog/client-budgets.ts"],
  ["src/mcp/client-profiles.ts", "src/mcp/catalog/client-profiles.ts"],
  ["src/mcp/token-count.ts", "src/mcp/catalog/token-count.ts"],
  ["src/mcp/o200k-table.ts", "src/mcp/catalog/o200k-table.ts"],
  // One name, one meaning: the HTTP stages beside the audit's sync gate (audit/gate.ts) …
  ["src/mcp/http/gate.ts", "src/mcp/http/stages.ts"],
  // … a skill's audit digest beside the `sha256:` text (storage/digest.ts) …
  ["src/audit/digest.ts", "src/audit/skill-digest.ts"],
  // … the caller carried in the SDK's AuthInfo beside who the caller is (registry/caller.ts) …
  ["src/mcp/http/caller.ts", "src/mcp/http/auth-info.ts"],
  // … and an example's judgement beside a skill's audit verdict (audit/verdict.ts).
  ["src/examples/verdict.ts", "src/examples/judge.ts"],
];

const check = process.argv.includes("--check");
const abs = (p: string) => join(ROOT, p);
const oldToNew = new Map(MOVES.map(([from, to]) => [abs(from), abs(to)]));
const newToOld = new Map(MOVES.map(([from, to]) => [abs(to), abs(from)]));
let pending = 0;

function git(...args: string[]): string {
  const run = spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

// 1. The moves.
for (const [from, to] of MOVES) {
  const [hasOld, hasNew] = [existsSync(abs(from)), existsSync(abs(to))];
  if (hasOld && hasNew) throw new Error(`both ${from} and ${to} exist: merge them by hand`);
  if (!hasOld && !hasNew) console.warn(`neither ${from} nor ${to} exists: skipped (removed on another branch?)`);
  if (!hasOld) continue;
  pending++;
  if (check) console.log(`to move: ${from} → ${to}`);
  else {
    mkdirSync(dirname(abs(to)), { recursive: true });
    git("mv", from, to);
  }
}

// 2. Imports. A specifier that resolves from where its file is now is right; one that does not is
// resolved from where the file was, mapped through the moves and made relative again.
const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bmock\.module\(\s*|\bnew URL\(\s*|\brequire\(\s*)(["'])(\.{1,2}\/[^"']+\.(?:ts|tsx|js|mjs))\2/g;

function relativeSpecifier(fromDir: string, target: string): string {
  const rel = relative(fromDir, target);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

function rewriteImports(file: string, text: string): string {
  const dir = dirname(file);
  const oldDir = dirname(newToOld.get(file) ?? file);
  return text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
    if (existsSync(resolve(dir, spec))) return whole;
    const target = resolve(oldDir, spec);
    const moved = oldToNew.get(target) ?? target;
    if (!existsSync(moved)) return whole; // not ours to fix
    return `${lead}${quote}${relativeSpecifier(dir, moved)}${quote}`;
  });
}

// 3. Paths in prose: `src/mcp/catalog-cost.ts` anywhere, the binary's bundle-root path
// (`./mcp/o200k-table.ts`) in src/, and a bare basename in a comment where it cannot mean another
// file: one no other file has, or one named from the folder it was in (or a folder inside it).
const tracked = git("ls-files", "-z")
  .split("\0")
  .filter((f) => /\.(ts|tsx|md|jsonc?|mjs|html|css|toml|yml|yaml)$/.test(f) && existsSync(abs(f)));
const basenameCount = new Map<string, number>();
const movedPaths = new Set([...oldToNew.keys(), ...newToOld.keys()]);
for (const f of tracked.filter((f) => f.endsWith(".ts") && !movedPaths.has(abs(f))).concat(MOVES.map(([from]) => from)))
  basenameCount.set(basename(f), (basenameCount.get(basename(f)) ?? 0) + 1);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function rewriteProse(file: string, text: string): string {
  const inSrc = file.startsWith(abs("src/"));
  const oldDir = dirname(newToOld.get(file) ?? file);
  let out = text;
  for (const [from, to] of MOVES) {
    out = out.replace(new RegExp(`(?<![\\w./-])${escapeRegExp(from)}(?![\\w-])`, "g"), to);
    if (inSrc) {
      const [bundleFrom, bundleTo] = [from.slice("src/".length), to.slice("src/".length)];
      out = out.replace(new RegExp(`(["'])\\./${escapeRegExp(bundleFrom)}\\1`, "g"), `$1./${bundleTo}$1`);
    }
    if (!/\.(ts|tsx)$/.test(file)) continue;
    const name = basename(from);
    const unique = basenameCount.get(name) === 1;
    const near = relative(dirname(abs(from)), oldDir);
    if (!unique && (near.startsWith("..") || isAbsolute(near))) continue;
    // Bare mentions only: not part of a path (`../x.ts`, `audit/x.ts`) nor of an import specifier.
    out = out.replace(new RegExp(`(?<![\\w./"'-])${escapeRegExp(name)}(?![\\w-])`, "g"), () =>
      relative(dirname(file), abs(to)),
    );
  }
  return out;
}

const rewritten: string[] = [];
for (const f of tracked) {
  const file = abs(f);
  const text = readFileSync(file, "utf8");
  let next = /\.(ts|tsx|mjs)$/.test(f) && /^(src|test|bench|script)\//.test(f) ? rewriteImports(file, text) : text;
  if (f !== "script/group-mcp.ts") next = rewriteProse(file, next);
  if (next === text) continue;
  pending++;
  if (check) console.log(`to rewrite: ${f}`);
  else {
    writeFileSync(file, next);
    rewritten.push(f);
  }
}

// A longer path may push a line past the formatter's width.
const formattable = rewritten.filter((f) => /\.(ts|tsx|jsonc?)$/.test(f));
if (formattable.length > 0)
  spawnSync("bunx", ["biome", "format", "--write", ...formattable], { cwd: ROOT, stdio: "inherit" });

if (check && pending > 0) {
  console.log(`${pending} change(s) left: run bun script/group-mcp.ts`);
  process.exit(1);
}
console.log(check ? "nothing to do" : `done (${pending} change(s))`);
