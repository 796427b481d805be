import path from "node:path";
import type { ToolContext } from "agent-tool-catalog";

/**
 * One host data store (profiles, recipes) per anchor, for tools whose directory may lie in the
 * calling run's workspace. There a sandboxed command can plant links (`.myapp/profiles` made a
 * link to a host folder before the store's first use), so a directory inside the run's workspace
 * is anchored at that workspace: no folder from the workspace down may be a link. Elsewhere
 * (`~/.config/myapp/...`, possibly a link the host set up) the store is anchored at the directory
 * itself, which is followed once. Each store is kept, so it keeps the identity it pinned.
 */
export class WorkspaceAnchoredStores<Store> {
  /** The store anchored at the directory itself. */
  readonly configured: Store;
  private readonly directory: string;
  private readonly make: (anchor: string | undefined) => Store;
  private readonly byWorkspace = new Map<string, Store>();

  /** @param make - Makes the store on the directory with this anchor (`undefined`: its default). */
  constructor(directory: string, make: (anchor: string | undefined) => Store) {
    this.directory = path.resolve(directory);
    this.make = make;
    this.configured = make(undefined);
  }

  /** The store as this call sees it. */
  for(context: ToolContext | undefined): Store {
    const workspace = context?.permissions.workspace;
    if (workspace === undefined || workspace === "") return this.configured;
    const anchor = path.resolve(workspace);
    const relative = path.relative(anchor, this.directory);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return this.configured;
    let store = this.byWorkspace.get(anchor);
    if (store === undefined) {
      store = this.make(anchor);
      this.byWorkspace.set(anchor, store);
    }
    return store;
  }
}
