/**
 * `patchbay/testing`: conformance kits and a test host for plugin authors.
 */
export { createHost } from "../host.js";
