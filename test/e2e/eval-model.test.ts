import { SOURCE_ENTRY } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";
import { evalModelSuite } from "./eval-model-suite.ts";

/** eval --model through the source entry (`bun src/cli.ts`). */
evalModelSuite({
  name: "source",
  run: (args, cwd, env) => runCommand([process.execPath, SOURCE_ENTRY, ...args], cwd, env),
});
