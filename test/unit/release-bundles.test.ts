import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extractSignatureBlock, getMcpConfigForManifest, MANIFEST_SCHEMAS } from "@anthropic-ai/mcpb";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { RELEASE_TARGETS } from "../../script/build.ts";
import {
  BundleError,
  bundleFileName,
  bundleManifest,
  bundleSigning,
  checkBundlePlatform,
  packBundle,
  stageBundle,
} from "../../script/release-bundles.ts";
import { runOk } from "../helpers/processes.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * The MCP Bundle manifest as Anthropic's own library reads it: its 0.3 schema, and its
 * getMcpConfigForManifest, which is how a host turns the manifest and the settings form into the
 * command it runs. test/e2e/release-pack.test.ts runs the packed bundle itself.
 */

const ENV = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };

function resolveFor(manifest: Record<string, unknown>, userConfig: Record<string, string>) {
  return getMcpConfigForManifest({
    manifest: manifest as never,
    extensionPath: "/ext",
    systemDirs: { HOME: "/home/u" },
    userConfig,
    pathSeparator: "/",
  });
}

describe("the bundle manifest", () => {
  test("passes the mcpb library's 0.3 schema for every release target, each naming its own platform", () => {
    for (const target of RELEASE_TARGETS) {
      const manifest = bundleManifest(target, pkg);
      expect(() => MANIFEST_SCHEMAS["0.3"].parse(manifest)).not.toThrow();
      expect(manifest).toMatchObject({
        manifest_version: "0.3",
        name: "skill-central",
        version: pkg.version,
        server: { type: "binary", entry_point: target.exe ? "server/skill-central.exe" : "server/skill-central" },
        compatibility: { platforms: [target.os] },
        user_config: { project_folder: { type: "directory", required: false } },
      });
    }
    expect(bundleFileName(RELEASE_TARGETS[0]!, "1.2.3")).toBe(`skill-central-${RELEASE_TARGETS[0]!.name}-1.2.3.mcpb`);
  });

  test("a host runs `mcp`, with the project folder as --cwd, or the placeholder as written when it was left empty", async () => {
    const linux = RELEASE_TARGETS.find((t) => t.name === "linux-x64")!;
    const windows = RELEASE_TARGETS.find((t) => t.exe)!;
    expect(await resolveFor(bundleManifest(linux, pkg), {})).toEqual({
      command: "/ext/server/skill-central",
      args: ["mcp", "--cwd", "${user_config.project_folder}"],
      env: {},
    });
    expect(await resolveFor(bundleManifest(windows, pkg), { project_folder: "/home/u/work" })).toEqual({
      command: "/ext/server/skill-central.exe",
      args: ["mcp", "--cwd", "/home/u/work"],
      env: {},
    });
  });

  test("author and repository come from package.json when it has them", () => {
    const target = RELEASE_TARGETS[0]!;
    const given = bundleManifest(target, {
      ...pkg,
      author: "Ada Lovelace <ada@example.com> (https://example.com)",
      repository: { type: "git", url: "https://example.com/skill-central.git" },
    });
    expect(given.author).toEqual({ name: "Ada Lovelace", email: "ada@example.com", url: "https://example.com" });
    expect(given.repository).toEqual({ type: "git", url: "https://example.com/skill-central.git" });
    expect(() => MANIFEST_SCHEMAS["0.3"].parse(given)).not.toThrow();
    expect(bundleManifest(target, { version: "1.0.0" }).author).toEqual({ name: "The skill-central contributors" });
  });
});

test("bundles are packed on Linux and macOS, and refused on Windows, where mcpb keeps no executable bits", () => {
  expect(() => checkBundlePlatform("linux")).not.toThrow();
  expect(() => checkBundlePlatform("darwin")).not.toThrow();
  expect(() => checkBundlePlatform("win32")).toThrow("pack the release on Linux or macOS");
});

describe("signing the bundles", () => {
  const exists = (path: string) => path.startsWith("/here/");

  test("neither key nor certificate: unsigned", () => {
    expect(bundleSigning({}, {}, exists)).toBeUndefined();
  });

  test("flags over the environment; intermediates from either", () => {
    expect(
      bundleSigning({ key: "/here/k.pem", cert: "/here/c.pem" }, { MCPB_SIGNING_KEY: "/here/other" }, exists),
    ).toEqual({ key: "/here/k.pem", cert: "/here/c.pem" });
    expect(
      bundleSigning(
        {},
        {
          MCPB_SIGNING_KEY: "/here/k.pem",
          MCPB_SIGNING_CERT: "/here/c.pem",
          MCPB_SIGNING_INTERMEDIATES: "/here/i1:/here/i2",
        },
        exists,
      ),
    ).toEqual({ key: "/here/k.pem", cert: "/here/c.pem", intermediates: ["/here/i1", "/here/i2"] });
  });

  test("a key without its certificate, the reverse, or a file that is not there, is refused", () => {
    expect(() => bundleSigning({ key: "/here/k.pem" }, {}, exists)).toThrow(
      "signing the bundles needs a private key and its certificate: --sign-cert (or MCPB_SIGNING_CERT) is missing",
    );
    expect(() => bundleSigning({}, { MCPB_SIGNING_CERT: "/here/c.pem" }, exists)).toThrow(
      "--sign-key (or MCPB_SIGNING_KEY) is missing",
    );
    expect(() => bundleSigning({ key: "/here/k.pem", cert: "/gone/c.pem" }, {}, exists)).toThrow(
      new BundleError("signing the bundles: /gone/c.pem does not exist"),
    );
  });

  describe("a bundle packed and signed with the mcpb CLI", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "skill-central-test-mcpb-sign-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test("carries a PKCS#7 signature over the zip that openssl verifies with the certificate given", async () => {
      const target = RELEASE_TARGETS.find((t) => t.name === "linux-x64")!;
      // A stand-in binary: packing and signing do not look inside it.
      const binary = join(dir, "binary");
      writeFileSync(binary, "#!/bin/sh\necho stand-in\n", { mode: 0o755 });
      await stageBundle(REPO_ROOT, join(dir, "stage"), target, pkg, binary);
      const cert = join(dir, "cert.pem");
      const key = join(dir, "key.pem");
      await runOk(
        [
          "openssl",
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "2",
          "-subj",
          "/CN=skill-central tests",
        ].concat(["-keyout", key, "-out", cert]),
        { cwd: dir, env: ENV, timeoutMs: 60_000 },
      );
      const bundle = join(dir, "out", "signed.mcpb");
      mkdirSync(join(dir, "out"));
      await packBundle(REPO_ROOT, join(dir, "stage"), bundle, { key, cert });

      const { originalContent, pkcs7Signature } = extractSignatureBlock(Buffer.from(await Bun.file(bundle).bytes()));
      expect(pkcs7Signature).toBeDefined();
      writeFileSync(join(dir, "content.zip"), originalContent);
      writeFileSync(join(dir, "signature.der"), pkcs7Signature!);
      const verified = await runOk(
        [
          "openssl",
          "smime",
          "-verify",
          "-binary",
          "-inform",
          "DER",
          "-in",
          "signature.der",
          "-content",
          "content.zip",
        ].concat(["-CAfile", cert, "-purpose", "any", "-out", "/dev/null"]),
        { cwd: dir, env: ENV, timeoutMs: 60_000 },
      );
      expect(verified.stderr).toContain("Verification successful");
    }, 60_000);

    test("a key that is not a key fails with mcpb's message, and leaves no unsigned bundle to upload by mistake", async () => {
      const bad = join(dir, "bad-key.pem");
      writeFileSync(bad, "not a key\n");
      const bundle = join(dir, "out", "bad.mcpb");
      const failed = packBundle(REPO_ROOT, join(dir, "stage"), bundle, { key: bad, cert: join(dir, "cert.pem") });
      await expect(failed).rejects.toThrow(
        `mcpb sign failed for ${bundle}:\nSigning bad.mcpb...\nERROR: Signing failed`,
      );
      expect(existsSync(bundle)).toBe(false);
    }, 60_000);
  });
});
