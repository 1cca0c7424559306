import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import { runCommand } from "./cli-run.ts";
import { evalModelSuite } from "./eval-model-suite.ts";

/** eval --model in the compiled binary: the lazily imported model mode and its MCP client load once bundled. */
let binary = "";
beforeAll(async () => {
  binary = await buildForTests();
}, 600_000);

evalModelSuite({ name: "binary", run: (args, cwd, env) => runCommand([binary, ...args], cwd, env) });
