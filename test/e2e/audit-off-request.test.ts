import { SOURCE_TARGET } from "../helpers/server.ts";
import { auditOffRequestSuite } from "./audit-off-request-suite.ts";

/** Issue 48 item 8 on the wire, against the source entry (the binary: audit-off-request-binary.test.ts). */
auditOffRequestSuite(SOURCE_TARGET);
