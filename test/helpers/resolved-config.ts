import { resolveConfig, type ConfigOptions } from "../../src/config/resolve-config.ts";
import type { Diagnostic } from "../../src/diagnostics.ts";
import type { Fixture } from "./fixture.ts";

/** The config a fixture's files resolve to, with every finding (and their messages alone). */
export async function resolvedConfig(fixture: Fixture, options: Omit<ConfigOptions, "cwd" | "home"> = {}) {
  const diagnostics: Diagnostic[] = [];
  const config = await resolveConfig({ cwd: fixture.cwd, home: fixture.home, ...options }, (d) => diagnostics.push(d));
  return { config, diagnostics, messages: diagnostics.map((d) => d.message) };
}
