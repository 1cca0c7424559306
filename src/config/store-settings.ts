/**
 * `store:` (docs/usage.md): where skill-central keeps its state that outlives a process (today
 * the usage history; next, governance), a SQLite file or a team's PostgreSQL database:
 *
 *   store: ~/team/usage.db                                   # a file (relative to the config)
 *   store: postgres://skills@db.example.com:5432/skills      # password from PGPASSWORD
 *   store: { url: postgres://skills@db/skills, passwordEnv: SKILLS_DB_PASSWORD }
 *
 * The password never sits in a config file: a URL holding one is refused (the message never
 * repeats it), and it is read from the environment when the store is opened. Like `usage.store`
 * the key is the user's alone (config-origin.ts): a cloned project's config pointing every use at
 * someone else's database would send it the user's history. `usage.store` wins for the usage
 * history when both are set (resolve-config.ts).
 */
import { isPostgresUrl, postgresUrlProblem } from "../storage/store-location.ts";
import { userOnly, type ConfigOrigin } from "./config-origin.ts";
import type { ReportProblem } from "./config-problem.ts";
import { ENV_NAME_PATTERN } from "./config-names.ts";
import { NON_BLANK, readBlock } from "./config-schema.ts";

/** The store as read: a file's absolute path or a URL, and the variable its password is in. */
export interface StoreSetting {
  store: string;
  passwordEnv?: string;
}

const STORE_HINT = "store: ./state.db, or store: postgres://user@host:5432/db (the password in PGPASSWORD)";

/** `store:` in a config file: a path or URL, or `{ url, passwordEnv }`. */
export const StoreBlock = {
  $id: "store",
  anyOf: [
    NON_BLANK,
    {
      type: "object",
      additionalProperties: false,
      required: ["url"],
      properties: {
        url: { ...NON_BLANK, errorMessage: "must be a postgres:// URL or a path", hint: STORE_HINT },
        passwordEnv: {
          type: "string",
          pattern: ENV_NAME_PATTERN.source,
          errorMessage: "must name an environment variable",
          hint: "the password stays in the environment, e.g. passwordEnv: SKILLS_DB_PASSWORD",
        },
      },
    },
  ],
  errorMessage: "must be a path, a postgres:// URL, or a mapping { url, passwordEnv }",
  hint: STORE_HINT,
} as const;

/**
 * A store named in a config (`store:` or `usage.store`): a URL checked (no password, a host), a
 * path made absolute. Undefined, with the problem reported at `path`, when it cannot be used.
 */
export function readStoreName(
  text: string,
  resolvePath: (path: string) => string,
  report: ReportProblem,
  name: string,
  path: readonly (string | number)[],
): string | undefined {
  const trimmed = text.trim();
  if (!isPostgresUrl(trimmed)) return resolvePath(trimmed);
  const problem = postgresUrlProblem(trimmed);
  if (problem === undefined) return trimmed;
  report({ message: `${name} ${problem}`, path: [...path], hint: STORE_HINT });
  return undefined;
}

/** The `store:` key of one config file; undefined when it is ignored (each problem reported). */
export function readStoreSetting(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
  origin: ConfigOrigin,
): StoreSetting | undefined {
  const block = readBlock(StoreBlock, value, report, { key: "store" });
  if (block === undefined || !userOnly(origin, "store", [], report)) return undefined;
  const text = typeof block === "string" ? block : block.url;
  const store = readStoreName(text, resolvePath, report, "store", typeof block === "string" ? [] : ["url"]);
  if (store === undefined) return undefined;
  return {
    store,
    ...(typeof block !== "string" && block.passwordEnv !== undefined && { passwordEnv: block.passwordEnv }),
  };
}
