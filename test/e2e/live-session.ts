import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Connected } from "../helpers/server.ts";

export type ListKind = "prompts" | "tools" | "resources";

/** How long a test waits for what the server does after a file change: generous (~40× the usual), yet under bun test's 5 s per test so the failure names what was missing. */
export const CHANGE_TIMEOUT_MS = 4_000;

/**
 * Counts the list_changed notifications a connected client receives and lets a test wait for
 * the n-th one of a kind, instead of sleeping and hoping.
 */
export class ListChanges {
  readonly counts: Record<ListKind, number> = { prompts: 0, tools: 0, resources: 0 };
  private waiters: { kind: ListKind; count: number; resolve: () => void }[] = [];

  constructor(session: Connected) {
    const bump = (kind: ListKind) => async () => {
      this.counts[kind]++;
      this.waiters = this.waiters.filter((w) => {
        if (this.counts[w.kind] < w.count) return true;
        w.resolve();
        return false;
      });
    };
    session.client.setNotificationHandler(PromptListChangedNotificationSchema, bump("prompts"));
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, bump("tools"));
    session.client.setNotificationHandler(ResourceListChangedNotificationSchema, bump("resources"));
  }

  /** Resolves when `kind` has been notified `count` times in all; rejects after the timeout. */
  waitFor(kind: ListKind, count: number, timeoutMs = CHANGE_TIMEOUT_MS): Promise<void> {
    if (this.counts[kind] >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${kind}/list_changed #${count} within ${timeoutMs} ms (got ${this.counts[kind]})`)), timeoutMs);
      this.waiters.push({ kind, count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

/**
 * Retries `check` until it passes (returns without throwing) or the timeout ends, then rethrows
 * its last failure: for effects that come with no notification (a body edit, a kept file).
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = CHANGE_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(25);
    }
  }
}

/** The text of a prompt result's single message, or of a tool result's first content block. */
export function textOf(result: unknown): string {
  const r = result as { messages?: { content: { text?: string } }[]; content?: { text?: string }[] };
  return (r.messages ? r.messages[0]?.content.text : r.content?.[0]?.text) ?? "";
}
