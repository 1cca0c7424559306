import type { Client } from "@modelcontextprotocol/client";

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

  /**
   * Counts what `client` receives: unsolicited on a 2025-11-25 connection; on a 2026-07-28 one,
   * only on a `subscriptions/listen` stream (see `listen`).
   */
  constructor(private readonly client: Client) {
    const bump = (kind: ListKind) => async () => {
      this.counts[kind]++;
      this.waiters = this.waiters.filter((w) => {
        if (this.counts[w.kind] < w.count) return true;
        w.resolve();
        return false;
      });
    };
    client.setNotificationHandler("notifications/prompts/list_changed", bump("prompts"));
    client.setNotificationHandler("notifications/tools/list_changed", bump("tools"));
    client.setNotificationHandler("notifications/resources/list_changed", bump("resources"));
  }

  /** Opens the 2026-07-28 stream that carries list_changed for all three lists; resolves once acknowledged. */
  async listen(): Promise<{ close(): Promise<void> }> {
    return this.client.listen({ promptsListChanged: true, toolsListChanged: true, resourcesListChanged: true });
  }

  /** Resolves when `kind` has been notified `count` times in all; rejects after the timeout. */
  waitFor(kind: ListKind, count: number, timeoutMs = CHANGE_TIMEOUT_MS): Promise<void> {
    if (this.counts[kind] >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${kind}/list_changed #${count} within ${timeoutMs} ms (got ${this.counts[kind]})`)),
        timeoutMs,
      );
      this.waiters.push({
        kind,
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
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
