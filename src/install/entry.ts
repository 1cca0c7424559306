/** The name every client shows for our server. */
export const SERVER_KEY = "skill-central";

export type Scope = "user" | "project";
export const SCOPES: readonly Scope[] = ["user", "project"];

/**
 * What install registers, before a client gives it its own shape: the stdio command line that
 * starts this install, or the URL of a running HTTP server and the variable holding its token.
 */
export type DesiredEntry =
  | { transport: "stdio"; command: string; args: string[] }
  | { transport: "http"; url: string; tokenEnv?: string };

/**
 * How a client would start or reach an entry, variables resolved: exactly what verification
 * runs (command, args, env, working folder) or calls (URL, headers).
 */
export type Reach =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { transport: "http"; url: string; headers: Record<string, string> };
