/**
 * One git tool's handler module, loaded on that tool's first call. The git entry imports only
 * the tool definitions (names, schemas, descriptions): a host that registers the git tools and
 * never calls one does not load the object readers, history walks and diffs (most of the entry's
 * code). Each tool loads its own module, so the build splits the code per tool: a process that
 * answers one question (a new process per call) parses and compiles that tool's code and the
 * shared readers, not the other four tools' (blame's line diff, contributors' rename pairing).
 */
function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    return loading;
  };
}

/** `git_blame_context`'s handler module. */
export const loadBlame = onDemand(() => import("./blame.js"));
/** `git_contributor_context`'s handler module. */
export const loadContributor = onDemand(() => import("./contributor.js"));
/** `git_diff_range`'s handler module. */
export const loadDiffRange = onDemand(() => import("./diff-range.js"));
/** `git_file_history`'s handler module. */
export const loadFileHistory = onDemand(() => import("./file-history.js"));
/** `git_log_search`'s handler module. */
export const loadLogSearch = onDemand(() => import("./log-search.js"));
