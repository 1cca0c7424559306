/**
 * The name rules config keys share, defined once: a key naming an environment variable
 * (`tokenEnv`, `clientSecretEnv`, `--token-env`) and a key naming skills (a well-known layer's
 * `skills`, a skill's id, an index entry's name).
 */

/** A POSIX shell environment variable name: letters, digits, `_`, not starting with a digit. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `review-pr`, `kmp-expert`: lowercase words joined by single hyphens. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
