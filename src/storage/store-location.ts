/**
 * Where a store is: a SQLite file (the default, embedded) or a PostgreSQL database named by a
 * `postgres://` / `postgresql://` URL (a team's store, shared by replicas and laptops). Its
 * password is never part of the location: it is read from the environment when the store is
 * opened (`PGPASSWORD`, as libpq reads it, or a variable the config names), so it never sits in a
 * config file, and this module is where every message that names a store scrubs it out.
 */
import { homedir } from "node:os";
import { sep } from "node:path";

export type StoreLocation =
  | { kind: "sqlite"; path: string }
  | {
      kind: "postgres";
      /** The URL as configured: no password (the config refuses one). */
      url: string;
      /** The environment variable the password is read from. */
      passwordEnv: string;
    };

/** libpq's own variable: what a PostgreSQL user already sets. */
export const DEFAULT_PASSWORD_ENV = "PGPASSWORD";

/** Whether `text` names a PostgreSQL database rather than a file. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text.trim());
}

/** A configured store (a path, already absolute, or a URL) as a location. */
export function storeLocation(store: string, passwordEnv = DEFAULT_PASSWORD_ENV): StoreLocation {
  return isPostgresUrl(store) ? { kind: "postgres", url: store.trim(), passwordEnv } : { kind: "sqlite", path: store };
}

/** Why a URL cannot name a store (not a URL, or it holds a password), without repeating the password. */
export function postgresUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return "is not a valid postgres:// URL";
  }
  if (url.hostname === "" && !url.searchParams.has("host")) return "names no host";
  if (url.password !== "" || url.searchParams.has("password"))
    return `holds a password: a password never sits in a config file; remove it from the URL and set ${DEFAULT_PASSWORD_ENV} (or the variable passwordEnv names)`;
  return undefined;
}

/** A path as people read it: the home folder as `~`. */
export function shownPath(path: string, home = homedir()): string {
  return home !== "" && path.startsWith(`${home}${sep}`) ? `~${path.slice(home.length)}` : path;
}

/** The store as a message names it: a file's path, or `postgres://user@host:port/db` (never a password or query). */
export function shownStore(location: StoreLocation): string {
  if (location.kind === "sqlite") return shownPath(location.path);
  try {
    const url = new URL(location.url);
    const user = url.username !== "" ? `${decodeURIComponent(url.username)}@` : "";
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return "postgres://…";
  }
}

/**
 * `message` with every secret of `location` removed: the password from the environment, and
 * the URL's own user-info, wherever a driver's message repeats them.
 */
export function scrubbed(message: string, location: StoreLocation, env: Record<string, string | undefined>): string {
  if (location.kind === "sqlite") return message;
  let text = message;
  const password = env[location.passwordEnv];
  if (password !== undefined && password.length >= 1) text = text.split(password).join("***");
  try {
    const url = new URL(location.url);
    if (url.password !== "") text = text.split(url.password).join("***");
    text = text.split(location.url).join(shownStore(location));
  } catch {
    // An unparsable URL was refused by the config; nothing of it to scrub here.
  }
  return text;
}
