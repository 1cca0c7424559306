/** The package's version and the server's name, as `initialize` reports them. */
import pkg from "../package.json" with { type: "json" };

/** The package version; the server reports exactly this in `initialize`. */
export const VERSION: string = pkg.version;
export const SERVER_NAME = "skill-central";
