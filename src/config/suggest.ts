/** "Did you mean" lives in contract/ (a leaf) so the worker can use it too; config/ keeps its import path. */
export { levenshtein, suggest } from "../contract/suggest.js";
