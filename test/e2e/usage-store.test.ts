import { SOURCE_TARGET } from "../helpers/server.ts";
import { usageStoreSuite } from "./usage-store-suite.ts";

/** Issue 46's usage-store items against the source entry (the binary: usage-store-binary.test.ts). */
usageStoreSuite(SOURCE_TARGET);
