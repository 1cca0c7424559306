import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { folderFilesSuite } from "./folder-files-suite.ts";

/** The folder-files suite against the compiled executable; its hooks read `target.command` after the build. */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

folderFilesSuite(target);
