import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { SkillCentralError, type ErrorCode as LocalCode } from "../errors.ts";

/**
 * An error whose `message` goes on the wire exactly as written. The SDK's `McpError` would
 * prefix it with `MCP error <code>: `, which the protocol reference does not allow.
 */
export class WireError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const WIRE_CODES: Record<LocalCode, number> = {
  "unknown-prompt": ErrorCode.InvalidParams,
  "unknown-tool": ErrorCode.InvalidParams,
  "unknown-skill": ErrorCode.InvalidParams,
  "missing-argument": ErrorCode.InvalidParams,
  "invalid-arguments": ErrorCode.InvalidParams,
  "invalid-params": ErrorCode.InvalidParams,
  "no-skills-for-tags": ErrorCode.InvalidParams,
  "tags-required": ErrorCode.InvalidParams,
  "render-failed": ErrorCode.InternalError,
  "content-unavailable": ErrorCode.InternalError,
  "limit-exceeded": ErrorCode.InvalidParams,
};

/** Maps our errors to their JSON-RPC form; anything unexpected becomes an internal error. */
export function toWireError(error: unknown): WireError {
  if (error instanceof WireError) return error;
  if (error instanceof SkillCentralError) return new WireError(WIRE_CODES[error.code], error.message);
  return new WireError(ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
}
