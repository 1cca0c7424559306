/**
 * The MCP Bundles of a release: one `.mcpb` per release target, which Claude Desktop (and other
 * hosts that take Anthropic's format) installs with one click and a settings form, with no Node,
 * Bun or JSON file to edit. Each is a zip of `manifest.json` and that target's binary, packed,
 * validated and optionally signed by Anthropic's own `mcpb` CLI (`@anthropic-ai/mcpb`), so a
 * bundle is exactly what that tool makes of our manifest. script/release-pack.ts calls this with
 * the binaries it has just built.
 *
 * The settings form has one field, the project folder: its value reaches the server as
 * `mcp --cwd <folder>`. Hosts resolve `mcp_config` as the library's `getMcpConfigForManifest`
 * does, and a field left empty stays the literal `${user_config.project_folder}`, which the CLI
 * reads as "not given" (src/commands/support/options.ts): the server then serves the built-in
 * skills and the user's own config. The manifest declares nothing else a user could set and the
 * server would ignore.
 */
import { chmodSync, copyFileSync, linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ReleaseTarget } from "./build.ts";
import { binaryPathInPackage, MAIN_PACKAGE } from "./launcher/platform.ts";

/** Claude Desktop reads 0.3 manifests; the CLI validates against the version the manifest names. */
const MANIFEST_VERSION = "0.3";
/** The settings form's one field: the folder passed as `--cwd`. */
const PROJECT_FOLDER_KEY = "project_folder";
/** `author` is required in a bundle manifest; package.json may not say. */
const FALLBACK_AUTHOR = { name: "The skill-central contributors" };

/** What script/release-pack.ts reads from package.json, as far as the bundle needs it. */
export interface BundleSource {
  version: string;
  description?: string;
  keywords?: string[];
  license?: string;
  homepage?: string;
  author?: unknown;
  repository?: unknown;
}

/** A certificate and private key (PEM files) to sign the bundles with `mcpb sign`. */
export interface BundleSigning {
  cert: string;
  key: string;
  /** Intermediate certificates (PEM files) to embed, in chain order. */
  intermediates?: string[];
}

export class BundleError extends Error {}

export function bundleFileName(target: ReleaseTarget, version: string): string {
  return `${MAIN_PACKAGE}-${target.name}-${version}.mcpb`;
}

/** `server/skill-central`, or `server/skill-central.exe` on Windows. */
function entryPoint(target: ReleaseTarget): string {
  return `server/${binaryPathInPackage(target.os).split("/").pop()}`;
}

function author(source: BundleSource): { name: string; email?: string; url?: string } {
  const given = source.author;
  if (typeof given === "string" && given.trim() !== "") {
    // npm's "Name <email> (url)" shorthand.
    const match = /^([^<(]+?)\s*(?:<([^>]+)>)?\s*(?:\(([^)]+)\))?$/.exec(given.trim());
    return {
      name: match?.[1] ?? given.trim(),
      ...(match?.[2] && { email: match[2] }),
      ...(match?.[3] && { url: match[3] }),
    };
  }
  if (given && typeof given === "object" && typeof (given as { name?: unknown }).name === "string")
    return given as { name: string };
  return FALLBACK_AUTHOR;
}

function repository(source: BundleSource): { type: string; url: string } | undefined {
  const given = source.repository;
  if (typeof given === "string") return { type: "git", url: given };
  if (given && typeof given === "object" && typeof (given as { url?: unknown }).url === "string")
    return { type: (given as { type?: string }).type ?? "git", url: (given as { url: string }).url };
  return undefined;
}

/** The bundle's manifest.json for one target (manifest_version 0.3, `server.type: "binary"`). */
export function bundleManifest(target: ReleaseTarget, source: BundleSource): Record<string, unknown> {
  const repo = repository(source);
  return {
    manifest_version: MANIFEST_VERSION,
    name: MAIN_PACKAGE,
    display_name: MAIN_PACKAGE,
    version: source.version,
    description: source.description ?? "Your team's reusable AI skills over MCP",
    long_description:
      "Serves your team's skills (YAML prompts and tools, and Agent Skills folders) from layered folders: " +
      "the built-in skills, your ~/.skill-central/config.yaml, and the project folder you pick, with its " +
      ".skills/ folder and skill-central.yaml. Skills reload when their files change.",
    author: author(source),
    ...(repo && { repository: repo }),
    ...(source.homepage && { homepage: source.homepage }),
    ...(source.license && { license: source.license }),
    ...(source.keywords && { keywords: source.keywords }),
    server: {
      type: "binary",
      entry_point: entryPoint(target),
      mcp_config: {
        command: `\${__dirname}/${entryPoint(target)}`,
        args: ["mcp", "--cwd", `\${user_config.${PROJECT_FOLDER_KEY}}`],
        env: {},
      },
    },
    // The skills are the user's: the server lists them when it runs.
    tools_generated: true,
    prompts_generated: true,
    user_config: {
      [PROJECT_FOLDER_KEY]: {
        type: "directory",
        title: "Project folder",
        description:
          "The folder whose skills to serve: its .skills/ folder and the layers its skill-central.yaml declares " +
          "(as `skill-central mcp --cwd`). Left empty: the built-in skills and those of ~/.skill-central/config.yaml.",
        required: false,
      },
    },
    compatibility: { platforms: [target.os] },
  };
}

/** The `mcpb` CLI of the checkout's devDependencies, run by the Bun running this script; its output and exit code. */
async function mcpb(root: string, args: string[]): Promise<{ output: string; code: number }> {
  const cli = join(root, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
  const proc = Bun.spawn([process.execPath, cli, ...args], {
    cwd: root,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { output: stdout + stderr, code };
}

/**
 * A bundle's folder: manifest.json and the binary under server/. The binary is hard-linked when
 * it can be (it is ~100 MiB), else copied.
 */
export async function stageBundle(
  root: string,
  dir: string,
  target: ReleaseTarget,
  source: BundleSource,
  binary: string,
): Promise<void> {
  mkdirSync(join(dir, "server"), { recursive: true });
  const into = join(dir, entryPoint(target));
  try {
    linkSync(binary, into);
  } catch {
    copyFileSync(binary, into);
    chmodSync(into, 0o755);
  }
  const manifest = join(dir, "manifest.json");
  writeFileSync(manifest, `${JSON.stringify(bundleManifest(target, source), null, 2)}\n`);
  const check = await mcpb(root, ["validate", manifest]);
  if (check.code !== 0) throw new BundleError(`mcpb validate refused the ${target.name} manifest:\n${check.output}`);
}

/** `mcpb pack`, then `mcpb sign` when signing is set; the CLI's own messages on failure. */
export async function packBundle(
  root: string,
  stage: string,
  outfile: string,
  signing: BundleSigning | undefined,
): Promise<void> {
  const packed = await mcpb(root, ["pack", stage, outfile]);
  if (packed.code !== 0) throw new BundleError(`mcpb pack failed for ${stage}:\n${packed.output}`);
  if (!signing) return;
  try {
    await signBundle(root, outfile, signing);
  } catch (error) {
    // An unsigned bundle where a signed one was asked for must not be uploaded by mistake.
    rmSync(outfile, { force: true });
    throw error;
  }
}

export async function signBundle(root: string, file: string, signing: BundleSigning): Promise<void> {
  const args = ["sign", file, "--cert", signing.cert, "--key", signing.key];
  if (signing.intermediates?.length) args.push("--intermediate", ...signing.intermediates);
  const signed = await mcpb(root, args);
  if (signed.code !== 0) throw new BundleError(`mcpb sign failed for ${file}:\n${signed.output}`);
}

/**
 * Bundles are packed on Linux or macOS only: on Windows the `mcpb` CLI writes no file modes into
 * the zip, and the Linux and macOS binaries would install without their executable bit.
 */
export function checkBundlePlatform(platform: NodeJS.Platform): void {
  if (platform === "win32")
    throw new BundleError(
      "pack the release on Linux or macOS: on Windows the mcpb CLI keeps no file modes, and the binaries in the Linux and macOS bundles would not be executable",
    );
}

/**
 * The signing key and certificate: `--sign-key`/`--sign-cert` (`--sign-intermediate`, repeatable),
 * else MCPB_SIGNING_KEY/MCPB_SIGNING_CERT (MCPB_SIGNING_INTERMEDIATES, separated by the path
 * delimiter). Neither: unsigned. A key without a certificate, or the reverse, or a file that is not
 * there, is refused before anything is built.
 */
export function bundleSigning(
  flags: { key?: string; cert?: string; intermediates?: string[] },
  env: Record<string, string | undefined>,
  exists: (path: string) => boolean,
): BundleSigning | undefined {
  const key = flags.key ?? (env.MCPB_SIGNING_KEY || undefined);
  const cert = flags.cert ?? (env.MCPB_SIGNING_CERT || undefined);
  const intermediates = flags.intermediates?.length
    ? flags.intermediates
    : (env.MCPB_SIGNING_INTERMEDIATES ?? "").split(process.platform === "win32" ? ";" : ":").filter(Boolean);
  if (key === undefined && cert === undefined) return undefined;
  if (key === undefined || cert === undefined)
    throw new BundleError(
      `signing the bundles needs a private key and its certificate: ${key === undefined ? "--sign-key (or MCPB_SIGNING_KEY)" : "--sign-cert (or MCPB_SIGNING_CERT)"} is missing`,
    );
  for (const file of [key, cert, ...intermediates])
    if (!exists(file)) throw new BundleError(`signing the bundles: ${file} does not exist`);
  return { key, cert, ...(intermediates.length > 0 && { intermediates }) };
}
