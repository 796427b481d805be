import path from "node:path";
import { configValueReadings } from "./pointer-readings.js";
import { workTreeInside } from "./work-tree-value.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * Schemes of network URLs kept in a new repository's config: host git reaches another machine
 * through its own transports (`git-remote-http`, `ssh`, the git protocol) and runs nothing the
 * command chose. Any other `<scheme>://` runs the helper `git-remote-<scheme>`, and `file://` is
 * a local path (judged as one).
 */
const NETWORK_SCHEMES = new Set(["https", "http", "ssh", "git", "git+ssh", "ssh+git"]);

/**
 * The suffixes git's `enter_repo` tries after a local repository path (`upload-pack`,
 * `receive-pack`): `/ws/repo` is also `/ws/repo.git`, `/ws/repo/.git`, `/ws/repo.git/.git`, so a
 * link at any of them counts as much as the path itself.
 */
const REPOSITORY_SUFFIXES = ["", "/.git", ".git", ".git/.git"];

/**
 * Whether a repository URL in a config the command wrote may be kept: the value of
 * `remote.<name>.url`, `remote.<name>.pushurl`, `submodule.<name>.url` or `branch.<name>.remote`
 * (a name no remote is configured under is a URL to git). Host git run there by the user (`git
 * fetch`, `git push`, `git pull`, `git submodule update`) reads or writes the repository it names:
 * a local path or `file://` URL naming a host repository has the user's `git fetch` copy its
 * objects into the workspace (where the next command reads them) and `git push` write its refs.
 *
 * Kept: a network URL (`https://`, `http://`, `ssh://`, `git://`, scp-like `[user@]host:path`)
 * whose host does not start with `-`; a local path, or a `file:///` URL, that names a place inside
 * the workspace lexically and through the links on the way as they are now (workTreeInside), also
 * with the suffixes git tries (`.git`, `/.git`), a relative one judged from the git directory, its
 * parent and the workspace root (git resolves it from the work tree's top). Not kept: a
 * `<transport>::<address>` (`ext::` runs a program, `fd::` talks to descriptors, any other runs
 * `git-remote-<transport>`), another `<scheme>://`, a value git would expand (`~`) or read with
 * quotes, escapes, a comment or a `%`-escape, an empty value or a key with no `=`.
 *
 * @param value - the value after `=`, untrimmed; `undefined` for a key with no `=`
 * @param gitDirectory - the real path of the git directory holding the config
 * @param root - the real path of the workspace root
 */
export function repositoryUrlKept(value: string | undefined, gitDirectory: string, root: string): boolean {
  const form = urlForm(value);
  if (form === undefined) return false;
  return "local" in form ? localPathInside(form.local, gitDirectory, root) : form.networkKept;
}

/**
 * How git reads a repository URL: a local path (a `file:///` URL's path), a network URL (and
 * whether its host and user may be kept), or `undefined` for a form never kept (quotes, escapes, a
 * comment, `%`, whitespace, `~`, a leading `-`, a `<transport>::` helper, another scheme,
 * `file://host/`, an empty value or a key with no `=`).
 */
function urlForm(value: string | undefined): { readonly local: string } | { readonly networkKept: boolean } | undefined {
  const text = value?.trim();
  if (text === undefined || text === "" || /["\\#;%\s]/.test(text) || text.startsWith("~") || text.startsWith("-"))
    return undefined;
  // A value git reads otherwise than trimmed (`../u<VT>`: git keeps the `\v`) is not judged.
  if (configValueReadings(value ?? "").length !== 1) return undefined;
  // `<transport>::<address>`: the scheme characters git accepts, then `::` (transport.c).
  if (/^[A-Za-z0-9+.-]*::/.test(text)) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (scheme !== null) {
    const name = scheme[1]?.toLowerCase() ?? "";
    if (name === "file") return text.startsWith("file:///") ? { local: text.slice("file://".length) } : undefined;
    if (!NETWORK_SCHEMES.has(name)) return undefined;
    const authority = text.slice(scheme[0].length).split("/")[0] ?? "";
    const host = authority.slice(authority.lastIndexOf("@") + 1);
    return { networkKept: host !== "" && !host.startsWith("-") && !authority.startsWith("-") };
  }
  const colon = text.indexOf(":");
  const slash = text.indexOf("/");
  // Git reads a value with a colon and no slash before it as scp-like ssh (`url_is_local_not_ssh`).
  if (colon !== -1 && (slash === -1 || colon < slash)) {
    return { networkKept: /^(?:[^@:/-][^@:/]*@)?(?:[A-Za-z0-9_][A-Za-z0-9._-]*|\[[^\]/]+\]):/.test(text) };
  }
  return { local: text };
}

/** Whether a local repository path stays inside `root` from every base git may resolve it from, with each suffix git tries. */
function localPathInside(text: string, gitDirectory: string, root: string): boolean {
  if (text.startsWith("~")) return false;
  const bases = path.isAbsolute(text) ? [root] : [gitDirectory, path.dirname(gitDirectory), root];
  return bases.every((base) => {
    const target = path.resolve(base, text);
    // `<root>.git` is beside the workspace, not in it: a host path the command cannot make.
    const suffixes = target === root ? ["", "/.git"] : REPOSITORY_SUFFIXES;
    // Judged as written (not `target`, normalized): git opens `d/..` from `d`'s target (round 43).
    const written = path.isAbsolute(text) ? text : `${base}/${text}`;
    return suffixes.every((suffix) => workTreeInside(written + suffix, base, root));
  });
}

/**
 * Whether a repository URL in the config of a git directory protected at spawn (the host's, read
 * only to the command) now leads out of the workspace through a link although it names a path
 * inside it: a kept inside remote (`$W/src`) whose repository a later command replaced with a link
 * to a host repository, so the user's `git fetch` there reads the host repository into the
 * workspace. A network URL, a value naming an outside path as written (a clone of a host
 * repository the user made), or one git would expand or read with quotes is the host's own setup
 * and not judged (false).
 *
 * @param value - the value after `=`, untrimmed; `undefined` for a key with no `=`
 * @param gitDirectory - the real path of the git directory holding the config
 * @param root - the real path of the workspace root
 */
export function repositoryUrlRelinked(value: string | undefined, gitDirectory: string, root: string): boolean {
  const form = urlForm(value);
  if (form === undefined || !("local" in form)) return false;
  const local = form.local;
  const bases = path.isAbsolute(local) ? [root] : [gitDirectory, path.dirname(gitDirectory), root];
  if (!bases.every((base) => isInsideDirectory(root, path.resolve(base, local)))) return false;
  return !localPathInside(local, gitDirectory, root);
}
