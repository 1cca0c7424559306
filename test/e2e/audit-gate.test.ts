import { SOURCE_TARGET } from "../helpers/server.ts";
import { auditGateSuite } from "./audit-gate-suite.ts";

/** Issue 48 item 1 on the wire, against the source entry (the binary: audit-gate-binary.test.ts). */
auditGateSuite(SOURCE_TARGET);
