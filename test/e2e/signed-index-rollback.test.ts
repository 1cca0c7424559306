import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { SOURCE_TARGET } from "../helpers/server.ts";
import { hasSshKeygen, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";
import { parsePrivateKey, signMessage } from "../../src/storage/sshsig.ts";
import { serveFolder } from "../helpers/static-host.ts";
import { runCli } from "./cli-run.ts";

/**
 * Signed well-known indexes over time (docs/provenance.md), through the real `publish` and
 * `sync`: `publish --sign` stamps each index with when it was published, inside the signed
 * bytes; a url layer with `signers` refuses an older index (a host serving an old, validly signed
 * copy), or one without the stamp once the locked one had it, unless `--allow-downgrade`; plain
 * `sync` never suggests an update it would refuse; a successful sync names the signer; the
 * layer's `revoked` file refuses a key's signatures.
 */

let publisher: Fixture;
let consumer: Fixture;
let site: string;
let server: ReturnType<typeof Bun.serve>;
let alice: TestKey;

const WELL_KNOWN = join(".well-known", "agent-skills");
const root = () => join(site, WELL_KNOWN);
const indexUrl = () => `http://127.0.0.1:${server.port}/.well-known/agent-skills/`;

beforeEach(() => {
  publisher = makeFixture({
    ".skills/review.yaml": "id: review\ndescription: Reviews a change\ntype: prompt\nprompt: Review v1\n",
  });
  consumer = makeFixture();
  site = join(publisher.root, "site");
  const keys = join(publisher.root, "keys");
  mkdirSync(keys, { recursive: true });
  alice = makeKey(keys, "alice");
  server = serveFolder(site);
});
afterEach(() => {
  server.stop(true);
  publisher.cleanup();
  consumer.cleanup();
});

function consume(extra = ""): void {
  consumer.write("publisher.allowed_signers", signerLine("alice@example.com", alice));
  consumer.write(
    "skill-central.yaml",
    `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${indexUrl()}", signers: publisher.allowed_signers${extra} }\n`,
  );
}

const publish = async (...args: string[]) => {
  const run = await runCli(["publish", site, ...args], publisher.cwd, publisher.home);
  expect(run.code).toBe(0);
};
const sync = (...args: string[]) => runCli(["sync", ...args], consumer.cwd, consumer.home, { NO_COLOR: "1" });
const lock = () => JSON.parse(readFileSync(join(consumer.cwd, "skill-central.lock"), "utf8")).layers.vendor;
const published = () =>
  JSON.parse(readFileSync(join(root(), "index.json"), "utf8"))._meta["dev.skill-central/published"];

async function servedText(): Promise<string> {
  const env = { HOME: consumer.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" };
  const client = await RawClient.start(SOURCE_TARGET, consumer.cwd, env);
  try {
    const got = await client.call<{ messages: { content: { text: string } }[] }>("prompts/get", { name: "review" });
    return got.messages[0]!.content.text.trim();
  } finally {
    await client.close();
  }
}

/** Publishes review v2 (signed by alice); the v1 site is kept in `old` to be served again. */
async function publishTwoVersions(): Promise<{ old: string; v1: string; v2: string }> {
  await publish("--sign", alice.file);
  const v1 = published();
  const old = join(publisher.root, "old-site");
  cpSync(site, old, { recursive: true });
  publisher.write(
    ".skills/review.yaml",
    "id: review\ndescription: Reviews a change\ntype: prompt\nprompt: Review v2\n",
  );
  await publish("--sign", alice.file);
  return { old, v1, v2: published() };
}

function serveAgain(old: string): void {
  rmSync(site, { recursive: true, force: true });
  cpSync(old, site, { recursive: true });
}

describe("signed indexes: publication time and rollback protection", () => {
  test("publish --sign stamps the index inside the signed bytes; a re-publish keeps the stamp, a change moves it forward", async () => {
    await publish("--sign", alice.file);
    const first = published();
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    await publish("--sign", alice.file);
    expect(published()).toBe(first);
    if (hasSshKeygen) {
      const allowed = join(publisher.root, "allowed");
      writeFileSync(allowed, signerLine("alice@example.com", alice));
      const args = ["-Y", "verify", "-f", allowed, "-I", "alice@example.com", "-n", "agent-skills"];
      const run = sshKeygen([...args, "-s", join(root(), "index.json.sig")], readFileSync(join(root(), "index.json")));
      expect(run.code).toBe(0);
    }
    const { v1, v2 } = await publishTwoVersions();
    expect(v1).toBe(first);
    expect(Date.parse(v2)).toBeGreaterThan(Date.parse(v1));
  });

  test("sync --update refuses an older signed index, naming both times; plain sync does not suggest it; --allow-downgrade takes it", async () => {
    await publish("--sign", alice.file);
    consume();
    expect((await sync()).code).toBe(0);
    const old = join(publisher.root, "old-site");
    cpSync(site, old, { recursive: true });
    const v1 = published();
    publisher.write(
      ".skills/review.yaml",
      "id: review\ndescription: Reviews a change\ntype: prompt\nprompt: Review v2\n",
    );
    await publish("--sign", alice.file);
    const v2 = published();

    const updated = await sync("--update");
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`  signed by alice@example.com (${alice.fingerprint})\n`);
    expect(lock().published).toBe(v2);
    const good = lock().contentHash;

    serveAgain(old);
    const refused = await sync("--update");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `was published ${v1}, before the locked index (published ${v2}): an older signed index is refused`,
    );
    expect(refused.stdout).toContain(
      "`skill-central sync --update vendor --allow-downgrade` takes it if that is meant",
    );
    expect(lock().contentHash).toBe(good);
    expect(await servedText()).toBe("Review v2");

    const plain = await sync();
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(
      "note: the index now differs for review, but `skill-central sync --update` refuses it: the index",
    );
    expect(plain.stdout).not.toContain("takes it\n");

    const allowed = await sync("--update", "vendor", "--allow-downgrade");
    expect(allowed.code).toBe(0);
    expect(lock().published).toBe(v1);
    expect(await servedText()).toBe("Review v1");
  });

  test("once the lock has a publication time, an index without one is refused", async () => {
    await publish("--sign", alice.file);
    consume();
    expect((await sync()).code).toBe(0);
    // The same skills, published unstamped and signed by hand (ssh-keygen, or in process without it).
    await publish();
    const index = join(root(), "index.json");
    rmSync(`${index}.sig`, { force: true });
    if (hasSshKeygen)
      expect(sshKeygen(["-q", "-Y", "sign", "-f", alice.file, "-n", "agent-skills", index]).code).toBe(0);
    else
      writeFileSync(
        `${index}.sig`,
        signMessage(parsePrivateKey(readFileSync(alice.file, "utf8")), readFileSync(index), "agent-skills"),
      );
    const refused = await sync("--update");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("carries no publication time, while the locked index was published");
  });

  test("revoked: an index signed by a revoked key is refused, naming its fingerprint; so is a lock it signed before", async () => {
    await publish("--sign", alice.file);
    consume();
    expect((await sync()).code).toBe(0);
    consume(", revoked: revoked_keys");
    consumer.write("revoked_keys", `# left the team\n${alice.publicLine}\n`);
    const locked = await sync();
    expect(locked.code).toBe(1);
    expect(locked.stdout).toContain(
      `the locked index is signed by ${alice.fingerprint}, a key revoked in revoked_keys (line 2); this layer refuses its signatures`,
    );
    rmSync(join(consumer.cwd, "skill-central.lock"));
    consumer.write("revoked_keys", `${alice.publicLine}\n`);
    const refused = await sync();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `is signed by ${alice.fingerprint}, a key revoked in revoked_keys (line 1); this layer refuses its signatures`,
    );
  });
});
