/**
 * The worker behind guarded-validation.ts: checks arguments against a schema whose patterns may
 * backtrack catastrophically, where a time limit can stop it without stopping the server.
 */
import { argumentProblems, prepareValidator } from "./arguments.ts";
import type { JsonSchema } from "../skill/json-schema.ts";

declare const self: Worker;

type Message = { prepare: string; schema: JsonSchema } | { id: number; key: string; args: unknown };

const schemas = new Map<string, JsonSchema>();

// Jobs are timed from when the worker can take them, not while it starts (loading its modules)
// or compiles a schema: neither depends on a call's arguments.
self.postMessage({ ready: true });

self.onmessage = (event: MessageEvent<Message>) => {
  const message = event.data;
  if ("prepare" in message) {
    schemas.set(message.prepare, message.schema);
    try {
      prepareValidator(message.schema);
    } catch {
      // A schema that does not compile fails each call with its reason, below.
    }
    self.postMessage({ prepared: message.prepare });
    return;
  }
  const { id, key, args } = message;
  try {
    self.postMessage({ id, problems: argumentProblems(schemas.get(key)!, args) });
  } catch (error) {
    self.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
  }
};
