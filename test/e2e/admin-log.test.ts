import { SOURCE_TARGET } from "../helpers/server.ts";
import { adminLogSuite } from "./admin-log-suite.ts";

/** Issue 50 item 4, `skill-central log`, against the source entry (the binary: admin-log-binary.test.ts). */
adminLogSuite(SOURCE_TARGET);
