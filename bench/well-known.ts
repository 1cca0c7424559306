#!/usr/bin/env bun
/**
 * What the well-known index costs with many skills: `skill-central publish` (load, make every
 * artifact, write the tree), the first and a repeated `sync` of a project taking the published
 * tree in from a local static server (fetch, verify, unpack, write the copy, lock), and `sync`
 * with the copy in place (verify only, then read the index to note changes). Each command runs
 * as its own process, as a person runs it. A tenth of the skills are folders (archives).
 *
 *     bun bench/well-known.ts [skills=1000] [runs=3]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./lib/stats.ts";

const count = Number(process.argv[2] ?? 1000);
const runs = Number(process.argv[3] ?? 3);
const root = mkdtempSync(join(tmpdir(), "bench-well-known-"));
const publisher = join(root, "publisher");
const site = join(root, "site");
const home = join(root, "home");
const cli = join(import.meta.dir, "..", "src", "cli.ts");

for (let i = 0; i < count; i++) {
  const id = `skill-${String(i).padStart(4, "0")}`;
  if (i % 10 === 0) {
    const dir = join(publisher, ".skills", id);
    mkdirSync(join(dir, "ref"), { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      `---\nname: ${id}\ndescription: Folder skill ${i}\n---\n\nSee ref/notes.md.\n`,
    );
    writeFileSync(join(dir, "ref", "notes.md"), `# Notes ${i}\n\n${"Some reference text. ".repeat(40)}\n`);
  } else {
    mkdirSync(join(publisher, ".skills"), { recursive: true });
    writeFileSync(
      join(publisher, ".skills", `${id}.yaml`),
      `id: ${id}\ndescription: Prompt skill ${i}\ntype: prompt\nversion: 1.0.${i}\nprompt: 'Do task ${i} for {{who}}'\n`,
    );
  }
}
writeFileSync(join(publisher, "skill-central.yaml"), "builtin: false\n");

/** Async: the static server below answers from this process while the command runs. */
async function timed(args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, cli, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${args.join(" ")}: ${out}${err}`);
  return ms;
}

const publish: number[] = [];
const republish: number[] = [];
for (let run = 0; run < runs; run++) {
  rmSync(site, { recursive: true, force: true });
  publish.push(await timed(["publish", site], publisher));
  republish.push(await timed(["publish", site], publisher));
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const file = Bun.file(join(site, new URL(request.url).pathname));
    return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
  },
});
const url = `http://127.0.0.1:${server.port}/.well-known/agent-skills/`;
const firstSync: number[] = [];
const keptSync: number[] = [];
for (let run = 0; run < runs; run++) {
  const consumer = join(root, `consumer-${run}`);
  mkdirSync(consumer, { recursive: true });
  writeFileSync(
    join(consumer, "skill-central.yaml"),
    `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${url}" }\n`,
  );
  rmSync(join(home, ".cache"), { recursive: true, force: true });
  firstSync.push(await timed(["sync"], consumer));
  keptSync.push(await timed(["sync"], consumer));
}
await server.stop(true);
rmSync(root, { recursive: true, force: true });

const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
console.log(`${count} skills (${count / 10} folders as .tar.gz), median of ${runs}, each a fresh process:`);
console.log(`  publish (empty folder)          ${ms(publish)}`);
console.log(`  publish (nothing changed)       ${ms(republish)}`);
console.log(`  sync (fetch, verify, lock)      ${ms(firstSync)}`);
console.log(`  sync (copy verified, index read) ${ms(keptSync)}`);
