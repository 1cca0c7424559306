/**
 * Imported first by the CLI entry, before any other module runs: stdout is the JSON-RPC channel in
 * `mcp` mode, so anything that logs through `console` (our code, a dependency, Handlebars' `log`)
 * must land on stderr instead. Commands that print results write to `process.stdout` directly.
 */
const toStderr = (...args: unknown[]): void => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
