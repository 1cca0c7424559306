import { SOURCE_CLI, visibleOutputSuite } from "./visible-output-suite.ts";

/** Issue 46 item 2 from the source entry (`bun src/cli.ts`); visible-output-binary.test.ts runs it on the binary. */
visibleOutputSuite(SOURCE_CLI);
