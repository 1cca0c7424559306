import { SOURCE_TARGET } from "../helpers/server.ts";
import { protocolSuite } from "./protocol-suite.ts";

protocolSuite(SOURCE_TARGET);
