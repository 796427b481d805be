/**
 * A module imported on first use: the import starts once, later callers share its promise.
 */
function onFirstUse<Module>(load: () => Promise<Module>): () => Promise<Module> {
  let loading: Promise<Module> | undefined;
  return () => {
    loading ??= load();
    return loading;
  };
}

// Each git tool's handler, loaded by the tool's first call. The git entry then imports only the
// tool definitions (names, schemas, descriptions): a host that registers the git tools and never
// calls one loads none of the object readers, history walks and diffs (most of the entry's code),
// and a call loads its own tool's code, not the other four's (a process that answers one question
// compiles less: the diff renderer, blame's line mapping and the contributor tally are per tool).
// The build puts each tool's handler in a chunk of its own and what they share (the repository,
// object readers, history walk) in shared chunks.

/** `git_log_search`'s handler. */
export const loadLogSearch = onFirstUse(() => import("./log-search.js"));
/** `git_file_history`'s handler. */
export const loadFileHistory = onFirstUse(() => import("./file-history.js"));
/** `git_blame_context`'s handler. */
export const loadBlame = onFirstUse(() => import("./blame.js"));
/** `git_diff_range`'s handler. */
export const loadDiffRange = onFirstUse(() => import("./diff-range.js"));
/** `git_contributor_context`'s handler. */
export const loadContributor = onFirstUse(() => import("./contributor.js"));
