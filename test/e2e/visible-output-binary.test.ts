import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import { type CliTarget, visibleOutputSuite } from "./visible-output-suite.ts";

/** Issue 46 item 2 against the compiled executable (built once per `bun test` process). */
let binary = "";
const target: CliTarget = { name: "binary", argv: () => [binary] };

beforeAll(async () => {
  binary = await buildForTests();
}, 120_000);

visibleOutputSuite(target);
