/** MCP over stdio, both protocol eras on one stream, with changed lists announced after a reload. */
import type { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { sendListChanged, watchListChanges } from "./list-changed.ts";
import { listensForUpdates, watchResourceUpdates } from "./resource-subscriptions.ts";
import type { OnSkillUse } from "./feature.ts";
import type { RegistrySource } from "./registry-source.ts";
import { createServer } from "./server.ts";
import type { StdioTransport } from "./stdio-transport.ts";

export interface StdioOptions {
  /** Skills are watched: send list_changed after a reload. */
  live: boolean;
  warn: (message: string) => void;
  /** The usage history's hook (absent: nothing is recorded). */
  onUse?: OnSkillUse;
}

/**
 * MCP over stdio, both eras: the SDK's `serveStdio` decides the connection's era from its first
 * message (an `initialize` handshake, or a 2026-07-28 request with its `_meta` envelope; a
 * `server/discover` probe is answered either way) and routes `subscriptions/listen`; our
 * transport keeps the stream's guarantees (see stdio-transport.ts).
 *
 * After a reload, the connection's server announces changed lists: unsolicited on a 2025-11-25
 * connection once it has initialized, on the client's `subscriptions/listen` stream (which the
 * SDK fans out) on a 2026-07-28 one.
 */
export function serveMcpOverStdio(
  source: RegistrySource,
  transport: StdioTransport,
  options: StdioOptions,
): { close(): Promise<void> } {
  /** The instance serving the connection (the last one built: a discarded probe instance is replaced). */
  let current: { server: Server; ready: boolean } | undefined;
  const handle = serveStdio(
    ({ era }) => {
      const server = createServer(source, { live: options.live, ...(options.onUse && { onUse: options.onUse }) });
      const instance = { server, ready: era === "modern" };
      server.oninitialized = () => {
        instance.ready = true;
      };
      server.onerror = (error) => options.warn(error.message);
      current = instance;
      return server;
    },
    { transport, onerror: (error) => options.warn(error.message) },
  );
  const stopWatching = options.live
    ? watchListChanges(source, (kinds) => {
        if (!current?.ready) return;
        sendListChanged(current.server, kinds).catch((error: unknown) =>
          options.warn(`could not send a list_changed notification: ${String(error)}`),
        );
      })
    : () => {};
  // A 2026-07-28 connection's listen stream takes the URIs its client subscribed to (the SDK filters).
  const stopUpdates = options.live
    ? watchResourceUpdates(source, (uris) => {
        if (!current?.ready || !listensForUpdates(current.server)) return;
        for (const uri of uris) current.server.sendResourceUpdated({ uri }).catch(() => {});
      })
    : () => {};
  return {
    async close() {
      stopWatching();
      stopUpdates();
      await handle.close();
    },
  };
}
