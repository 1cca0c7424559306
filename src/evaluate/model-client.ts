/**
 * A model, as the eval engine talks to it: one wire adapter, one endpoint and key, and the
 * recordings. `--record DIR` stores every exchange, keyed by a hash of the canonical request (the
 * provider and the body: model, messages, tools) under the digest of the skill being evaluated;
 * `--replay DIR` answers from those files only, with a fetch that fails loudly, so a replay can
 * never reach the network. A skill whose digest has no recordings is the caller's to report as
 * needing a new recording (`hasRecordings`); a request with none is an error naming the eval.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../storage/digest.ts";
import type { ModelRequest, ModelTurn } from "./conversation.ts";
import { ModelError, postJson, scrub, type Wire } from "./wire.ts";

export interface ModelClientOptions {
  wire: Wire;
  baseUrl: string;
  key: string | undefined;
  timeoutMs: number;
  retries?: number;
  record?: string;
  replay?: string;
  fetch?: typeof fetch;
}

/** Whose exchange this is: the recordings are kept per skill and digest, and errors name the eval. */
export interface ExchangeScope {
  skill: string;
  digest: string;
  label: string;
}

/** A file-system-safe name: `/` and other unsafe characters become `_` (the results layout uses the same). */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
}

/** JSON with every object's keys sorted: the same request always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

const NO_NETWORK: typeof fetch = Object.assign(
  () => {
    throw new ModelError("--replay makes no network request, and one was attempted");
  },
  { preconnect: () => {} },
) as typeof fetch;

export class ModelClient {
  readonly provider: Wire["provider"];
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ModelClientOptions) {
    this.provider = options.wire.provider;
    this.fetch = options.replay !== undefined ? NO_NETWORK : (options.fetch ?? fetch);
  }

  get replaying(): boolean {
    return this.options.replay !== undefined;
  }

  private folder(root: string, scope: ExchangeScope): string {
    return join(root, safeName(scope.skill), scope.digest.replace(/^sha256:/, ""));
  }

  /** Replaying: whether any exchange was recorded for this skill at this digest. */
  hasRecordings(skill: string, digest: string): boolean {
    return (
      this.options.replay === undefined || existsSync(this.folder(this.options.replay, { skill, digest, label: "" }))
    );
  }

  async turn(request: ModelRequest, scope: ExchangeScope): Promise<ModelTurn> {
    const { wire } = this.options;
    const body = wire.body(request);
    const key = sha256Hex(canonical({ provider: wire.provider, digest: scope.digest, body }));
    if (this.options.replay !== undefined) {
      const file = join(this.folder(this.options.replay, scope), `${key}.json`);
      let stored: { response?: unknown };
      try {
        stored = JSON.parse(readFileSync(file, "utf8")) as { response?: unknown };
      } catch {
        throw new ModelError(
          `${scope.label}: no recording of this request (${key.slice(0, 12)}) in --replay: record it again with --record`,
        );
      }
      return wire.parse(stored.response);
    }
    const response = await postJson(wire.url(this.options.baseUrl), wire.headers(this.options.key), body, {
      key: this.options.key,
      timeoutMs: this.options.timeoutMs,
      retries: this.options.retries ?? 2,
      backoffMs: (attempt) => 500 * 2 ** attempt,
      fetch: this.fetch,
    });
    // Recorded before it is read: a malformed answer is replayed as malformed.
    if (this.options.record !== undefined) {
      const folder = this.folder(this.options.record, scope);
      mkdirSync(folder, { recursive: true });
      const text = JSON.stringify({ provider: wire.provider, request: body, response }, null, 2);
      writeFileSync(join(folder, `${key}.json`), `${scrub(text, this.options.key)}\n`);
    }
    return wire.parse(response);
  }
}
