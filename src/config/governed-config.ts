/**
 * Whether a server's config makes it governed (docs/governance.md): a `policy.approvers` or
 * `policy.approval` in the user's or the project's config, the same test the load makes before
 * it reads the admin log. Asked once at start, before the first client is answered, by a server
 * started with `--no-watch`: a governed one still reloads when the admin log changes, so it must
 * tell its clients its lists can change (listChanged). A config that does not mention approvals
 * at all is not parsed here: the check costs a `--no-watch` start a read of its small files.
 */
import { homedir } from "node:os";
import { projectConfigPath, readConfigFile, userConfigPath } from "./config-file.ts";

export async function governedConfig(options: { cwd: string; home?: string | undefined }): Promise<boolean> {
  const home = options.home ?? homedir();
  const files = [userConfigPath(home), projectConfigPath(options.cwd)];
  const found = await Promise.all(
    files.map(async (file, i) => {
      if (file === undefined) return false;
      const text = await Bun.file(file)
        .text()
        .catch(() => "");
      if (!text.includes("approv")) return false;
      const config = await readConfigFile(file, home, () => {}, i === 0 ? "user" : "project");
      return config.policy?.approvers !== undefined || config.policy?.approval !== undefined;
    }),
  );
  return found.some(Boolean);
}
