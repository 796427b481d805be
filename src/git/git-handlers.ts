// Everything a git tool runs: history walks, the object readers, diffs. Loaded by the first call
// of a git tool (see load-git-handlers.ts), so that importing the git entry and registering the
// tools costs only their definitions.
export { runBlame } from "./blame.js";
export { runContributor } from "./contributor.js";
export { runDiffRange } from "./diff-range.js";
export { runFileHistory } from "./file-history.js";
export { runLogSearch } from "./log-search.js";
