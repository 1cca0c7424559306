import { SOURCE_TARGET } from "../helpers/server.ts";
import { teamStoreReplicasSuite } from "./team-store-replicas-suite.ts";

/** Issue 49's replicas on one PostgreSQL store, against the source entry (the binary: team-store-replicas-binary.test.ts). */
teamStoreReplicasSuite(SOURCE_TARGET);
