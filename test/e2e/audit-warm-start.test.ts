import { SOURCE_TARGET } from "../helpers/server.ts";
import { auditWarmStartSuite } from "./audit-warm-start-suite.ts";

/** Against the source entry, with the start-up index switched on as the shipped forms have it (the binary: audit-warm-start-binary.test.ts). */
auditWarmStartSuite(SOURCE_TARGET, { SKILL_CENTRAL_CACHE: "on" });
