/**
 * Resource subscriptions, in both eras: `resources/subscribe` and `resources/unsubscribe` on a
 * 2025-11-25 connection (this feature), the `resourceSubscriptions` of a 2026-07-28
 * `subscriptions/listen` stream (the SDK filters; the transports send `changedUris`). Either way a
 * client hears `notifications/resources/updated` for a URI a reload changed: a skill file by its
 * published digest, our JSON views by their text. Only while the skills are watched, and never
 * on a stateless server (it cannot know a 2025-11-25 client again).
 */
import { SubscribeRequestParamsSchema, UnsubscribeRequestParamsSchema } from "@modelcontextprotocol/core";
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { publishedSkill, publishedSkillOf } from "../registry/published-skills.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import { SKILL_SCHEME, skillUri } from "../skill/skill-uri.ts";
import type { Feature, FeatureOptions } from "./feature.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { readResource } from "./resources.ts";

/** The first revision whose subscriptions ride on `subscriptions/listen`. */
const LISTEN_ERA = "2026-07-28";

/** What a URI reads as in a snapshot, as cheaply as can be told: a skill file's digest, else the text; undefined when it names nothing. */
function versionOf(registry: Registry, uri: string): string | undefined {
  if (uri.startsWith(SKILL_SCHEME)) {
    const name = uri.slice(SKILL_SCHEME.length).split("/")[0] ?? "";
    return publishedSkill(registry, name)?.files.find((f) => f.uri === uri)?.digest;
  }
  try {
    const content = readResource(registry, uri).contents[0];
    return content && "text" in content ? content.text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A skill's published files by URI → version; none when no client can have been given them. A
 * YAML skill's one file (its synthesised SKILL.md) is versioned by its `Skill` and layer, without
 * making it: the replaced snapshot's template may be gone, and reading it would start a reload.
 */
function givenFiles(candidate: Candidate | undefined): Map<string, unknown> {
  if (!candidate) return new Map();
  if (candidate.skill.format !== "skill-md") return new Map([[skillUri(candidate.skill.id), candidate.skill]]);
  // A folder's digests nobody asked for were never given (and are not worked out for this).
  if (!candidate.files?.known) return new Map();
  return new Map(publishedSkillOf(candidate)?.files.map((f) => [f.uri, f.digest]));
}

/**
 * The `skill://` URIs whose bytes differ between two snapshots (changed, added or removed), for
 * 2026-07-28 listen streams, which filter them by each client's `resourceSubscriptions`. Only
 * skills whose version changed are looked at, so a reload costs what it changed.
 */
export function changedUris(previous: Registry, next: Registry): string[] {
  const uris: string[] = [];
  const before = new Map(previous.ofType("prompt").map((c) => [c.skill.id, c]));
  for (const now of next.ofType("prompt")) {
    const then = before.get(now.skill.id);
    before.delete(now.skill.id);
    if (then && then.skill === now.skill && then.files === now.files && then.layer.name === now.layer.name) continue;
    const old = givenFiles(then);
    const fresh = givenFiles(now);
    // A YAML skill's SKILL.md names its layer: another layer is another file.
    const moved = then !== undefined && then.layer.name !== now.layer.name;
    for (const [uri, version] of fresh) if (moved || old.get(uri) !== version) uris.push(uri);
    for (const uri of old.keys()) if (!fresh.has(uri)) uris.push(uri);
  }
  for (const gone of before.values()) for (const uri of givenFiles(gone).keys()) uris.push(uri);
  return uris;
}

/** Calls `announce` with the URIs each reload changed (see changedUris); returns the unsubscribe function. */
export function watchResourceUpdates(source: RegistrySource, announce: (uris: readonly string[]) => void): () => void {
  return source.onSwap((next, previous) => {
    const uris = changedUris(previous, next);
    if (uris.length > 0) announce(uris);
  });
}

/** A 2025-11-25 connection's subscriptions, URI → the version last told; told again when a reload changes it. */
function subscriptionsOf(server: Server, source: RegistrySource): Map<string, string | undefined> {
  const subscribed = new Map<string, string | undefined>();
  const stop = source.onSwap((next) => {
    // The connection is gone: nothing more to tell it.
    if (!server.transport) {
      stop();
      return;
    }
    for (const [uri, version] of subscribed) {
      const now = versionOf(next, uri);
      if (now === version) continue;
      subscribed.set(uri, now);
      server.sendResourceUpdated({ uri }).catch(() => {
        // Closed meanwhile: the next swap unsubscribes.
      });
    }
  });
  return subscribed;
}

/** Whether a connection subscribes on its listen stream (2026-07-28), where these methods do not exist. */
export function listensForUpdates(server: Server): boolean {
  return (server.getNegotiatedProtocolVersion() ?? "") >= LISTEN_ERA;
}

function refuseOnListenEra(server: Server, method: string): void {
  if (listensForUpdates(server))
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`);
}

const offered = (options: FeatureOptions) => options.live && !options.stateless;

export const resourceSubscriptionsFeature: Feature = {
  name: "resource-subscriptions",
  capabilities: (options) => (offered(options) ? { resources: { subscribe: true } } : {}),
  register(server, source: RegistrySource, options: FeatureOptions) {
    if (!offered(options)) return;
    let subscribed: Map<string, string | undefined> | undefined;
    handle(server, "resources/subscribe", SubscribeRequestParamsSchema, async (params) => {
      refuseOnListenEra(server, "resources/subscribe");
      subscribed ??= subscriptionsOf(server, source);
      subscribed.set(params.uri, versionOf(await source.current(), params.uri));
      return {};
    });
    handle(server, "resources/unsubscribe", UnsubscribeRequestParamsSchema, (params) => {
      refuseOnListenEra(server, "resources/unsubscribe");
      subscribed?.delete(params.uri);
      return {};
    });
  },
};
