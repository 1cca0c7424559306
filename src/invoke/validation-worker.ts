/**
 * The worker behind guarded-validation.ts: checks arguments against a schema whose patterns may
 * backtrack catastrophically, where a time limit can stop it without stopping the server.
 */
import { argumentProblems } from "./arguments.ts";
import type { JsonSchema } from "../skill/json-schema.ts";

declare const self: Worker;

interface Job {
  id: number;
  schema: JsonSchema;
  args: unknown;
}

const schemas = new Map<string, JsonSchema>();

// Jobs are timed from when the worker can take them, not while it starts (loading its modules).
self.postMessage({ ready: true });

self.onmessage = (event: MessageEvent<Job & { key: string }>) => {
  const { id, key, args } = event.data;
  // The schema is sent once per key; later jobs refer to it, so validators compile once.
  let schema = schemas.get(key);
  if (!schema) {
    schema = event.data.schema;
    schemas.set(key, schema);
  }
  try {
    self.postMessage({ id, problems: argumentProblems(schema, args) });
  } catch (error) {
    self.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
  }
};
