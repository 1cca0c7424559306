/**
 * The server's fetch of locked copies it does not have: an IDE started on a fresh clone (or after
 * the cache was cleared) gets the team's layers without anyone running `skill-central sync` first.
 * A project git or url layer whose lock entry matches the config but whose copy is missing is
 * synced exactly as `sync --frozen` syncs it (sync.ts, not a second code path): the locked commit
 * or index, its signers and revoked keys, the audit gate, the cache entry's lock shared with every
 * other process; the lockfile is never written. Imported only when a load has such a layer: a
 * start with every copy present loads neither this nor the audit gate.
 */
import type { ConfigOptions, LayerSpec } from "../config/resolve-config.ts";
import { visibleLine } from "../visible-text.ts";
import { redactText } from "./git-url.ts";
import { syncLayers } from "./sync.ts";

export interface MissingCopiesOptions extends ConfigOptions {
  /** A copy arrived: the layers should be loaded again (which sends `list_changed`). */
  changed: () => void;
  /** One line for stderr. */
  log: (message: string) => void;
}

/** The multi-line problem of a sync report (an audit refusal lists each blocked skill) as one line. */
const oneLine = (problem: string): string => problem.replace(/:\n\s+/, ": ").replace(/\n\s+/g, "; ");

/**
 * Fetches each missing locked copy once per process and lock entry, one round at a time, in the
 * background. A layer that cannot be fetched (offline, a remote gone, a commit the audit blocks)
 * is one warning and is not tried again until its lock entry changes (a pulled lockfile) or the
 * server restarts: no retry storm against a remote that is down, and `skill-central sync` says
 * the rest. A copy another process is fetching is waited for through the entry lock, then used.
 */
export class MissingCopies {
  /** `name\0locked`: each lock entry is tried once. */
  private readonly tried = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: MissingCopiesOptions) {}

  /** Queues a fetch of the layers of the latest load whose locked copy is missing and not yet tried. */
  update(layers: readonly LayerSpec[]): void {
    if (this.closed) return;
    const wanted = layers.filter((l) => l.missingLocked !== undefined && !this.tried.has(keyOf(l)));
    if (wanted.length === 0) return;
    for (const layer of wanted) this.tried.add(keyOf(layer));
    this.queue = this.queue.then(() => this.fetch(wanted));
  }

  private async fetch(layers: readonly LayerSpec[]): Promise<void> {
    if (this.closed) return;
    const { changed, log, ...config } = this.options;
    const label = (layer: LayerSpec, url: string) =>
      `${layer.source.kind === "git" ? "git" : "url"} layer "${layer.name}" (${url})`;
    let report: Awaited<ReturnType<typeof syncLayers>>;
    try {
      // The load already reported what is wrong with the config; a second report would repeat it.
      report = await syncLayers({ ...config, mode: "frozen", only: new Set(layers.map((l) => l.name)) }, () => {});
    } catch (error) {
      let message = error instanceof Error ? error.message : String(error);
      for (const layer of layers) if ("url" in layer.source) message = redactText(message, layer.source.url);
      log(`cannot fetch the missing copies of ${layers.map((l) => `"${l.name}"`).join(", ")}: ${message}`);
      return;
    }
    let arrived = false;
    for (const result of report.layers) {
      const layer = layers.find((l) => l.name === result.name);
      if (!layer) continue;
      if (result.outcome === "failed" || result.outcome === "out-of-date") {
        log(
          visibleLine(
            `cannot fetch the missing copy of ${label(layer, result.url)}: ${oneLine(result.problem ?? result.outcome)}; the other layers are served; tried again at the next start, or by \`skill-central sync\``,
          ),
        );
        continue;
      }
      arrived = true;
      const at =
        layer.source.kind === "git" ? (result.after ?? "").slice(0, 12) : `sha256:${(result.after ?? "").slice(0, 12)}`;
      log(
        `fetched the missing copy of ${label(layer, result.url)} at its locked ${layer.source.kind === "git" ? "commit" : "index"} ${at}; reloading`,
      );
    }
    if (arrived && !this.closed) changed();
  }

  close(): void {
    this.closed = true;
  }
}

function keyOf(layer: LayerSpec): string {
  return `${layer.name}\0${layer.missingLocked}`;
}
