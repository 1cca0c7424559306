import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { SOURCE_TARGET } from "../helpers/server.ts";
import { hasSshKeygen, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";
import { parsePrivateKey, signMessage } from "../../src/storage/sshsig.ts";
import { serveFolder } from "../helpers/static-host.ts";
import { runCli } from "./cli-run.ts";

/**
 * Signed well-known indexes (docs/provenance.md), end to end: `publish --sign` writes
 * `index.json.sig` beside every `index.json` (snapshots included) that `ssh-keygen -Y verify -n
 * agent-skills` accepts; a url layer with `signers` fetches and verifies it before anything else,
 * refuses a missing, tampered or unknown-key signature (the verified copy keeps serving), takes
 * one made by ssh-keygen itself, and names the signer in the lock, `skills/list` and `show`.
 */

let publisher: Fixture;
let consumer: Fixture;
let site: string;
let server: ReturnType<typeof Bun.serve>;
let alice: TestKey;
let mallory: TestKey;

const WELL_KNOWN = join(".well-known", "agent-skills");

beforeEach(() => {
  publisher = makeFixture({
    ".skills/review.yaml": "id: review\ndescription: Reviews a change\ntype: prompt\nprompt: Review v1\n",
  });
  consumer = makeFixture();
  site = join(publisher.root, "site");
  const keys = join(publisher.root, "keys");
  mkdirSync(keys, { recursive: true });
  alice = makeKey(keys, "alice");
  mallory = makeKey(keys, "mallory", hasSshKeygen ? "ecdsa256" : "ed25519");
  server = serveFolder(site);
});
afterEach(() => {
  server.stop(true);
  publisher.cleanup();
  consumer.cleanup();
});

const root = () => join(site, WELL_KNOWN);
const indexUrl = () => `http://127.0.0.1:${server.port}/.well-known/agent-skills/`;
const env = (home: string) => ({ HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1" });

function consume(signers: string): void {
  consumer.write("publisher.allowed_signers", signers);
  consumer.write(
    "skill-central.yaml",
    `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${indexUrl()}", signers: publisher.allowed_signers }\n`,
  );
}

function opensshVerify(dir: string, key: TestKey): { code: number; out: string } {
  const allowed = join(publisher.root, "verify.allowed_signers");
  writeFileSync(allowed, signerLine("alice@example.com", key));
  const args = ["-Y", "verify", "-f", allowed, "-I", "alice@example.com", "-n", "agent-skills"];
  const run = sshKeygen([...args, "-s", join(dir, "index.json.sig")], readFileSync(join(dir, "index.json")));
  return { code: run.code, out: run.stdout + run.stderr };
}

/** Signs the published index.json with `key`: with ssh-keygen where installed, else in process. */
function signIndexAs(key: TestKey): void {
  const index = join(root(), "index.json");
  rmSync(`${index}.sig`, { force: true }); // ssh-keygen asks before overwriting a signature
  if (!hasSshKeygen) {
    const signature = signMessage(parsePrivateKey(readFileSync(key.file, "utf8")), readFileSync(index), "agent-skills");
    writeFileSync(`${index}.sig`, signature);
    return;
  }
  const signed = sshKeygen(["-q", "-Y", "sign", "-f", key.file, "-n", "agent-skills", index]);
  if (signed.code !== 0) throw new Error(signed.stderr);
}

async function served(): Promise<{ text: string; meta: Record<string, unknown> }> {
  const client = await RawClient.start(SOURCE_TARGET, consumer.cwd, env(consumer.home));
  try {
    const got = await client.call<{ messages: { content: { text: string } }[] }>("prompts/get", { name: "review" });
    const list = await client.call<{ skills: { _meta: Record<string, Record<string, unknown>> }[] }>("skills/list", {});
    return { text: got.messages[0]!.content.text.trim(), meta: list.skills[0]!._meta["dev.skill-central/provenance"]! };
  } finally {
    await client.close();
  }
}

const lock = () => JSON.parse(readFileSync(join(consumer.cwd, "skill-central.lock"), "utf8")).layers.vendor;

describe("publish --sign and url layers with signers", () => {
  test("publish --sign writes index.json.sig beside every index.json, accepted by ssh-keygen -Y verify; a re-publish touches nothing", async () => {
    const published = await runCli(
      ["publish", site, "--snapshot", "1.0.0", "--sign", alice.file],
      publisher.cwd,
      publisher.home,
    );
    expect(published.stderr).toBe("");
    expect(published.code).toBe(0);
    expect(published.stdout).toContain(`index.json.sig signed with ${alice.fingerprint}`);
    for (const dir of [root(), join(root(), "v1.0.0")]) expect(existsSync(join(dir, "index.json.sig"))).toBe(true);
    // The interoperability check: OpenSSH accepts what we signed.
    for (const dir of hasSshKeygen ? [root(), join(root(), "v1.0.0")] : []) {
      const verified = opensshVerify(dir, alice);
      expect(verified.out).toContain('Good "agent-skills" signature for alice@example.com');
      expect(verified.code).toBe(0);
    }
    const again = await runCli(["publish", site, "--sign", alice.file, "--json"], publisher.cwd, publisher.home);
    expect(JSON.parse(again.stdout)).toMatchObject({ written: 0, signedBy: alice.fingerprint });
  });

  test.skipIf(!hasSshKeygen)(
    "an ECDSA key signs too (its signatures differ each time: the one that verifies is kept)",
    async () => {
      expect((await runCli(["publish", site, "--sign", mallory.file], publisher.cwd, publisher.home)).code).toBe(0);
      expect(opensshVerify(root(), mallory).code).toBe(0);
      const again = await runCli(["publish", site, "--sign", mallory.file, "--json"], publisher.cwd, publisher.home);
      expect(JSON.parse(again.stdout).written).toBe(0);
    },
  );

  test.skipIf(!hasSshKeygen)("a passphrase-protected key is refused before anything is written", async () => {
    const locked = makeKey(join(publisher.root, "keys"), "locked", "ed25519", "a passphrase");
    const run = await runCli(["publish", site, "--sign", locked.file], publisher.cwd, publisher.home);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("is encrypted with a passphrase");
    expect(existsSync(root())).toBe(false);
  });

  test("a url layer with signers verifies the index; lock, skills/list and show name the signer", async () => {
    expect((await runCli(["publish", site, "--sign", alice.file], publisher.cwd, publisher.home)).code).toBe(0);
    consume(signerLine("alice@example.com", alice));
    const sync = await runCli(["sync"], consumer.cwd, consumer.home);
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    expect(lock().signer).toEqual({ principal: "alice@example.com", fingerprint: alice.fingerprint });
    const { text, meta } = await served();
    expect(text).toBe("Review v1");
    expect(meta).toMatchObject({
      layer: "vendor",
      url: `${indexUrl()}index.json`,
      signer: { principal: "alice@example.com", fingerprint: alice.fingerprint },
    });
    expect(meta).not.toHaveProperty("commit");
    const show = await runCli(["show", "review"], consumer.cwd, consumer.home);
    expect(show.stdout).toContain(`  index      ${indexUrl()}index.json\n`);
    expect(show.stdout).toContain(`alice@example.com (${alice.fingerprint})`);
  });

  test("a signature made by ssh-keygen -Y sign (in process where it is missing) is accepted", async () => {
    expect((await runCli(["publish", site], publisher.cwd, publisher.home)).code).toBe(0);
    signIndexAs(alice);
    consume(signerLine("alice@example.com", alice));
    expect((await runCli(["sync"], consumer.cwd, consumer.home)).code).toBe(0);
    expect(lock().signer.fingerprint).toBe(alice.fingerprint);
  });

  test("missing, unknown-key and tampered signatures refuse the layer, each saying which; the verified copy keeps serving", async () => {
    expect((await runCli(["publish", site, "--sign", alice.file], publisher.cwd, publisher.home)).code).toBe(0);
    consume(signerLine("alice@example.com", alice));
    expect((await runCli(["sync"], consumer.cwd, consumer.home)).code).toBe(0);
    const good = lock().contentHash;
    const sig = join(root(), "index.json.sig");
    const saved = join(publisher.root, "saved.sig");
    copyFileSync(sig, saved);

    const cases: [string, () => void, RegExp][] = [
      ["missing", () => rmSync(sig), /has no signature this layer can read \(.*answered HTTP 404\)/],
      ["unknown key", () => signIndexAs(mallory), /a key the signers file does not list/],
      [
        "tampered",
        () => {
          copyFileSync(saved, sig);
          const index = join(root(), "index.json");
          writeFileSync(index, `${readFileSync(index, "utf8").trimEnd()} \n`);
        },
        /signature by alice@example\.com \(SHA256:[^)]+\) is invalid: it does not match the content/,
      ],
    ];
    for (const [name, make, message] of cases) {
      rmSync(sig, { force: true });
      copyFileSync(saved, sig);
      make();
      const update = await runCli(["sync", "--update"], consumer.cwd, consumer.home);
      expect(update.code, name).toBe(1);
      expect(update.stdout + update.stderr, name).toMatch(message);
      expect(lock().contentHash, name).toBe(good);
      expect((await served()).text, name).toBe("Review v1");
    }
  });

  test("doctor notes a url layer without signers; once it has them, its lock is checked again before it is served", async () => {
    expect((await runCli(["publish", site, "--sign", alice.file], publisher.cwd, publisher.home)).code).toBe(0);
    consumer.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${indexUrl()}" }\n`,
    );
    expect((await runCli(["sync"], consumer.cwd, consumer.home)).code).toBe(0);
    const doctor = await runCli(["doctor"], consumer.cwd, consumer.home);
    expect(doctor.stdout).toContain('url layer "vendor" has no signers');
    expect(doctor.stdout).toContain("not checked (no signers)");

    consume(signerLine("alice@example.com", alice));
    const check = await runCli(["sync", "--check"], consumer.cwd, consumer.home);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("the index was not verified against its signers; run skill-central sync");
    const list = await runCli(["list"], consumer.cwd, consumer.home);
    expect(list.stderr).toContain("its index was not verified against its signers");
    expect((await runCli(["sync"], consumer.cwd, consumer.home)).code).toBe(0);
    expect(lock().signer.principal).toBe("alice@example.com");
    expect((await served()).text).toBe("Review v1");
  });
});
