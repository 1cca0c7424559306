import { SOURCE_TARGET } from "../helpers/server.ts";
import { auditFloorSuite } from "./audit-floor-suite.ts";

/** Issue 46 item 7 on the wire, against the source entry (the binary: audit-floor-binary.test.ts). */
auditFloorSuite(SOURCE_TARGET);
