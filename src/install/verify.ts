/** Checking an entry the way its client would use it: started (stdio) or called (HTTP), expecting skill-central to answer. */
import { SERVER_NAME } from "../version.ts";
import type { Verify } from "./apply.ts";
import { checkHttpServer } from "./http-check.ts";
import { checkStdioServer } from "./stdio-check.ts";

/** How long a check waits for the server; a cold `bunx` may first fetch the package. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 30_000;

/** Starts (stdio) or calls (HTTP) an entry and expects skill-central to answer. */
export function verifier(timeoutMs = DEFAULT_VERIFY_TIMEOUT_MS, tokenEnv?: string): Verify {
  return (reach) =>
    reach.transport === "stdio"
      ? checkStdioServer(reach, { timeoutMs, expectName: SERVER_NAME })
      : checkHttpServer(reach, { timeoutMs, expectName: SERVER_NAME, ...(tokenEnv && { tokenEnv }) });
}
