/**
 * The machine as install sees it: where HOME is, which platform, the environment, what is on
 * PATH. Everything that locates a client's files goes through one of these, so a test can point
 * it at a temporary HOME and PATH.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export interface Host {
  home: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute path of a command on the host's PATH, or null. */
  which(command: string): string | null;
}

export function hostFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): Host {
  const home = (platform === "win32" ? env.USERPROFILE : env.HOME) || homedir();
  return { home, platform, env, which: (command) => Bun.which(command, { PATH: env.PATH ?? "" }) };
}

/** Where desktop apps keep their settings: Application Support, %APPDATA%, or XDG config. */
export function appDataDir(host: Host): string {
  if (host.platform === "darwin") return join(host.home, "Library", "Application Support");
  if (host.platform === "win32") return host.env.APPDATA || join(host.home, "AppData", "Roaming");
  return xdgConfigDir(host);
}

/** `$XDG_CONFIG_HOME`, else `~/.config` (also what CLI tools use on macOS). */
export function xdgConfigDir(host: Host): string {
  return host.env.XDG_CONFIG_HOME || join(host.home, ".config");
}

/** `~/…` for paths under HOME: shorter in messages, and no user name in them. */
export function tildePath(path: string, host: Host): string {
  return path === host.home || path.startsWith(`${host.home}/`) ? `~${path.slice(host.home.length)}` : path;
}
