import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { mainManifest } from "../../script/release-pack.ts";
import { RELEASE_TARGETS } from "../../script/build.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * server.json, the MCP Registry's entry for skill-central (published with `mcp-publisher publish`,
 * RELEASING.md): in step with package.json, and within the registry schema's rules
 * (https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json).
 */

interface ServerJson {
  $schema: string;
  name: string;
  title?: string;
  description: string;
  version: string;
  packages: {
    registryType: string;
    registryBaseUrl?: string;
    identifier: string;
    version: string;
    runtimeHint?: string;
    transport: { type: string };
    packageArguments?: { type: string; value?: string }[];
  }[];
}

const server = (await Bun.file(join(REPO_ROOT, "server.json")).json()) as ServerJson;

describe("server.json for the MCP Registry", () => {
  test("names a dated registry schema", () => {
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    );
  });

  test("its name is io.github.<owner>/skill-central, and package.json's mcpName is the same", () => {
    expect(server.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/skill-central$/);
    expect(pkg.mcpName).toBe(server.name);
  });

  test("the published package carries mcpName, which the registry checks for ownership", () => {
    expect(mainManifest(pkg, {}, RELEASE_TARGETS).mcpName).toBe(server.name);
  });

  test("a description of 1 to 100 characters (the schema's limit)", () => {
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
  });

  test("its version and the npm package's are package.json's", () => {
    expect(server.version).toBe(pkg.version);
    expect(server.packages.map((p) => p.version)).toEqual([pkg.version]);
  });

  test("one npm package, the main one, run over stdio as `npx skill-central mcp`", () => {
    expect(server.packages).toEqual([
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: "npx",
        transport: { type: "stdio" },
        packageArguments: [{ type: "positional", value: "mcp" }],
      },
    ]);
  });
});
