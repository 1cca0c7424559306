import { SOURCE_TARGET } from "../helpers/server.ts";
import { wellKnownConsumerSuite } from "./well-known-consumer-suite.ts";

/** Issue 34's well-known items against the source entry (the binary: well-known-consumer-binary.test.ts). */
wellKnownConsumerSuite(SOURCE_TARGET);
