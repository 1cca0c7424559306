import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hasSshKeygen, signCommitObject } from "./ssh-keys.ts";

/**
 * Real git repositories for tests, built with git's own plumbing (no work tree, no checkout):
 * a bare "remote" whose branches the test moves, with commits of any tree, hostile ones
 * included (a symlink, a submodule, a `..` entry, names that collide by case).
 */

const ENV = {
  PATH: process.env.PATH ?? "",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  LC_ALL: "C",
};

export function gitSync(args: string[], options: { cwd?: string; stdin?: string | Uint8Array } = {}): string {
  const proc = Bun.spawnSync(["git", ...args], {
    cwd: options.cwd,
    env: ENV,
    stdin:
      options.stdin === undefined
        ? "ignore"
        : typeof options.stdin === "string"
          ? new TextEncoder().encode(options.stdin)
          : options.stdin,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (proc.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${proc.stderr.toString()}`);
  return proc.stdout.toString().trim();
}

/** A file's content, or a special entry. */
export type TreeEntry = string | Uint8Array | { symlink: string } | { submodule: string } | { executable: string };

/** Paths may contain `/` (folders are made) and any name git's trees can hold (`..` included). */
export type Tree = Record<string, TreeEntry>;

export class Remote {
  readonly url: string;
  private counter = 0;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    gitSync(["init", "--quiet", "--bare", "--initial-branch=main", dir]);
    // Let clients fetch by commit id, as hosting services do.
    gitSync(["config", "uploadpack.allowAnySHA1InWant", "true"], { cwd: dir });
    this.url = `file://${dir}`;
  }

  private blob(content: string | Uint8Array): string {
    return gitSync(["hash-object", "-w", "--stdin"], { cwd: this.dir, stdin: content });
  }

  /** Builds the tree object for `files`, nested folders included, with `git mktree`. */
  tree(files: Tree): string {
    const here: string[] = [];
    const folders = new Map<string, Tree>();
    for (const [path, entry] of Object.entries(files)) {
      const slash = path.indexOf("/");
      if (slash >= 0) {
        const folder = path.slice(0, slash);
        const inner = folders.get(folder) ?? {};
        inner[path.slice(slash + 1)] = entry;
        folders.set(folder, inner);
        continue;
      }
      if (typeof entry === "string" || entry instanceof Uint8Array)
        here.push(`100644 blob ${this.blob(entry)}\t${path}`);
      else if ("symlink" in entry) here.push(`120000 blob ${this.blob(entry.symlink)}\t${path}`);
      else if ("submodule" in entry) here.push(`160000 commit ${entry.submodule}\t${path}`);
      else here.push(`100755 blob ${this.blob(entry.executable)}\t${path}`);
    }
    for (const [folder, inner] of folders) here.push(`040000 tree ${this.tree(inner)}\t${folder}`);
    return gitSync(["mktree"], { cwd: this.dir, stdin: `${here.join("\n")}\n` });
  }

  /** Commits `files` as the whole tree on `branch` (after its current tip unless `orphan`). */
  commit(
    files: Tree,
    options: { branch?: string; orphan?: boolean; message?: string; signWith?: string } = {},
  ): string {
    const branch = options.branch ?? "main";
    const parent = options.orphan ? undefined : this.tip(branch);
    const message = options.message ?? `commit ${++this.counter}`;
    // `signWith`: an SSH private key file; git signs with ssh-keygen, as `commit -S` does (without
    // ssh-keygen on this machine, the commit is signed in process the same way).
    const native = options.signWith !== undefined && hasSshKeygen;
    const sign = native
      ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${options.signWith}`, "commit-tree", "-S"]
      : ["commit-tree"];
    let commit = gitSync([...sign, this.tree(files), ...(parent ? ["-p", parent] : []), "-m", message], {
      cwd: this.dir,
    });
    if (options.signWith !== undefined && !native) {
      const signed = signCommitObject(
        `${gitSync(["cat-file", "commit", commit], { cwd: this.dir })}\n`,
        options.signWith,
      );
      commit = gitSync(["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: this.dir, stdin: signed });
    }
    gitSync(["update-ref", `refs/heads/${branch}`, commit], { cwd: this.dir });
    return commit;
  }

  /**
   * Commits many plain files at once (one `git fast-import`, not a process per file): `files`
   * is the whole new tree of `branch`.
   */
  bulkCommit(files: Record<string, string>, branch = "main"): string {
    const parent = this.tip(branch);
    const encoder = new TextEncoder();
    const parts: string[] = [
      `commit refs/heads/${branch}`,
      "committer Test <test@example.com> 1704067200 +0000",
      "data 4",
      "bulk",
      ...(parent ? [`from ${parent}`] : []),
      "deleteall",
    ];
    for (const [path, text] of Object.entries(files))
      parts.push(`M 100644 inline ${path}`, `data ${encoder.encode(text).length}`, text);
    gitSync(["fast-import", "--quiet"], { cwd: this.dir, stdin: `${parts.join("\n")}\n\n` });
    return this.tip(branch)!;
  }

  tip(branch = "main"): string | undefined {
    try {
      return gitSync(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: this.dir });
    } catch {
      return undefined;
    }
  }

  tag(name: string, commit: string): void {
    gitSync(["tag", "-a", "-m", name, name, commit], { cwd: this.dir });
  }

  /** A force-push that rewrites history: `branch` is replaced and unreachable commits are pruned. */
  forcePush(files: Tree, branch = "main"): string {
    const commit = this.commit(files, { branch, orphan: true, message: "rewritten" });
    gitSync(["reflog", "expire", "--expire=now", "--all"], { cwd: this.dir });
    gitSync(["gc", "--quiet", "--prune=now"], { cwd: this.dir });
    return commit;
  }
}

export function makeRemote(root: string, name = "skills.git"): Remote {
  return new Remote(join(root, name));
}

/** A minimal valid prompt skill file. */
export function skill(id: string, body = `Body of ${id}`, description = `The ${id} skill`): string {
  return `id: ${id}\ndescription: ${description}\ntype: prompt\nprompt: ${body}\n`;
}
