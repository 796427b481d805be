import type * as IsomorphicGit from "isomorphic-git";

let loading: Promise<typeof IsomorphicGit.default> | undefined;

/**
 * isomorphic-git, loaded on first use. It takes a third of a second to load, more than most git
 * tool calls on the node driver, which never needs it (refs and objects are read natively); only
 * a host fs client and branch listings for error hints use it.
 */
export function loadIsomorphicGit(): Promise<typeof IsomorphicGit.default> {
  loading ??= import("isomorphic-git").then((module) => module.default);
  return loading;
}
