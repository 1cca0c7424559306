import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { wellKnownConsumerSuite } from "./well-known-consumer-suite.ts";

/**
 * The well-known consumer's suite again, against the compiled executable: `sync`, `publish` and
 * `mcp` as the binary runs them (the suite reads `target.command` once `beforeAll` built it).
 */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

wellKnownConsumerSuite(target);
