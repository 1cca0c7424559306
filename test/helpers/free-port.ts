/**
 * A loopback port that was free a moment ago, for a process under test that must be told its
 * port before it listens (a public URL, nginx's `listen`, Verdaccio). Another process may take it
 * meanwhile; the tests that start such a server retry or fail loudly.
 */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}
