import { ToolError } from "agent-tool-catalog";
import { findTrustedExecutable } from "../sandbox/trusted-executable.js";

/**
 * The shell the tools that run commands (`bash`, `monitor`) start, per workspace root: the host's
 * `shell` when it gave one, else a `bash` that `findTrustedExecutable` vouches for (root-owned, not
 * writable by others, outside the workspace), found once per root. A bare `"bash"` looked up on
 * `PATH` would run a model-written `bash` from a relative or writable entry (`./node_modules/.bin`).
 * Throws `sandbox_unavailable` when there is none.
 */
export function trustedShellResolver(shell: string | undefined): (root: string) => string {
  const shells = new Map<string, string>();
  return (root) => {
    if (shell !== undefined) return shell;
    const known = shells.get(root);
    if (known !== undefined) return known;
    const found = findTrustedExecutable("bash", { untrustedRoots: [root] });
    if (!found.ok) {
      throw new ToolError("sandbox_unavailable", `bash cannot run: ${found.reason}`, {
        hint: "Tell the user the host needs bash in a root-owned system directory such as /usr/bin.",
      });
    }
    shells.set(root, found.path);
    return found.path;
  };
}
