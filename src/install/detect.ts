/** Which clients are on this machine, by their config folders or commands. */
import { CLIENTS } from "./clients/index.ts";
import type { ClientSpec } from "./clients/client.ts";
import type { Host } from "./host.ts";

export interface Detected {
  client: ClientSpec;
  /** What shows it is installed, e.g. "~/.cursor exists" or "claude is on PATH". */
  reason: string;
}

/** The clients whose config folder or command exists on this machine. */
export function detectClients(host: Host): Detected[] {
  return CLIENTS.flatMap((client) => {
    const reason = client.detect(host);
    return reason ? [{ client, reason }] : [];
  });
}
