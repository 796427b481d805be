type GitHandlers = typeof import("./git-handlers.js");

let loading: Promise<GitHandlers> | undefined;

/**
 * The git tools' handlers, loaded on the first call of any git tool. The git entry then imports
 * only the tool definitions (names, schemas, descriptions): a host that registers the git tools
 * and never calls one does not load the object readers, history walks and diffs (most of the
 * entry's code); the build puts them in a chunk of their own.
 */
export function loadGitHandlers(): Promise<GitHandlers> {
  loading ??= import("./git-handlers.js");
  return loading;
}
