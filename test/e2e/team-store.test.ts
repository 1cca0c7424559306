import { SOURCE_TARGET } from "../helpers/server.ts";
import { teamStoreSuite } from "./team-store-suite.ts";

/** Issue 49's team store against the source entry (the binary: team-store-binary.test.ts). */
teamStoreSuite(SOURCE_TARGET);
