import { elicitationSuite } from "./elicitation-suite.ts";

elicitationSuite({ era: "legacy", transport: "stdio" });
elicitationSuite({ era: "modern", transport: "stdio" });
elicitationSuite({ era: "legacy", transport: "http" });
elicitationSuite({ era: "modern", transport: "http" });
elicitationSuite({ era: "modern", transport: "http", stateless: true });
