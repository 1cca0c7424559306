import { SOURCE_TARGET } from "../helpers/server.ts";
import { approvalsSuite } from "./approvals-suite.ts";

/** Issue 50 item 2, approvals tied to digests, against the source entry (the binary: approvals-binary.test.ts). */
approvalsSuite(SOURCE_TARGET);
