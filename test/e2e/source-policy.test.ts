import { SOURCE_TARGET } from "../helpers/server.ts";
import { sourcePolicySuite } from "./source-policy-suite.ts";

/** Issue 50 item 1, `policy.sources`, against the source entry (the binary: source-policy-binary.test.ts). */
sourcePolicySuite(SOURCE_TARGET);
