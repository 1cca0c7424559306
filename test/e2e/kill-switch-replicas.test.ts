import { SOURCE_TARGET } from "../helpers/server.ts";
import { killSwitchReplicasSuite } from "./kill-switch-replicas-suite.ts";

/** Issue 50 item 3 across two replicas on one PostgreSQL store, against the source entry (the binary: kill-switch-replicas-binary.test.ts). */
killSwitchReplicasSuite(SOURCE_TARGET);
