/** Our errors as the SDK's `ProtocolError`, every message bounded; anything unexpected an internal error. */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { SkillCentralError, type ErrorCode as LocalCode } from "../errors.ts";

/**
 * Longest error message sent at all. Messages quote a caller's input through `quoted()` (at most
 * 200 characters of it); this is the backstop for anything that did not.
 */
export const MAX_MESSAGE_CHARS = 500;

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
}

const WIRE_CODES: Record<LocalCode, number> = {
  "unknown-prompt": ProtocolErrorCode.InvalidParams,
  "unknown-tool": ProtocolErrorCode.InvalidParams,
  "unknown-skill": ProtocolErrorCode.InvalidParams,
  "missing-argument": ProtocolErrorCode.InvalidParams,
  "invalid-arguments": ProtocolErrorCode.InvalidParams,
  "invalid-params": ProtocolErrorCode.InvalidParams,
  "no-skills-for-tags": ProtocolErrorCode.InvalidParams,
  "tags-required": ProtocolErrorCode.InvalidParams,
  "render-failed": ProtocolErrorCode.InternalError,
  "content-unavailable": ProtocolErrorCode.InternalError,
  "limit-exceeded": ProtocolErrorCode.InvalidParams,
};

/**
 * Maps our errors to the SDK's `ProtocolError`, whose `code`, `message` and `data` the SDK sends
 * unchanged; anything unexpected becomes an internal error. Every message is bounded.
 */
export function toWireError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) {
    return error.message.length <= MAX_MESSAGE_CHARS
      ? error
      : new ProtocolError(error.code, bounded(error.message), error.data);
  }
  if (error instanceof SkillCentralError) return new ProtocolError(WIRE_CODES[error.code], bounded(error.message));
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    bounded(error instanceof Error ? error.message : String(error)),
  );
}
