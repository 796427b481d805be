import path from "node:path";

/**
 * The part every profile shares: deny by default (network, unix sockets, mach services and
 * writes included), then allow what ordinary command-line tools need to start and run. Modelled on
 * the approach of Chrome's and Codex's Seatbelt policies; reads are allowed everywhere, as there
 * is no reliable list of what macOS toolchains read.
 */
const BASE_RULES = `(version 1)
(deny default)
(deny network*)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow user-preference-read)
(allow sysctl-read)
(allow mach-host*)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow ipc-posix-sem)
(allow pseudo-tty)
(allow file-read*)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-write-data (require-all (path "/dev/null") (vnode-type CHARACTER-DEVICE)))
(allow file-write-data file-ioctl (require-all (regex #"^/dev/ttys[0-9]+$") (vnode-type CHARACTER-DEVICE)))`;

/**
 * A character of a git name in every case APFS and HFS+ (case-insensitive by default) take for
 * it: both ASCII cases, and the two non-ASCII letters Unicode case folding makes ASCII (the
 * Kelvin sign `\u212a` is `k`, the long s `\u017f` is `s`).
 */
function caseless(character: string): string {
  const lower = character.toLowerCase();
  if (lower === "k") return "(k|K|\u212a)";
  if (lower === "s") return "(s|S|\u017f)";
  if (/[a-z]/.test(lower)) return `[${lower.toUpperCase()}${lower}]`;
  return character === "." ? "\\." : character;
}

const caselessName = (name: string) => [...name].map(caseless).join("");

/**
 * The git state directly in a `.git` that git executes or follows, in any case (a regex, also
 * valid for JavaScript's `RegExp`, which the tests use): on a case-insensitive volume the
 * default on macOS) `.git/HOOKS/pre-commit` made where no `hooks/` existed is the hook host git
 * runs, and `.git/Commondir` the `commondir` it follows, but the `subpath`/`literal` rules compare
 * the name as the command spelled it. Over-protects a differently-cased name on a case-sensitive
 * volume (no repository needs one). HFS+'s ignored code points (`hoo\u200cks`) are not covered.
 */
export const CASELESS_GIT_STATE_PATTERN = `/\\.${caselessName("git")}/+(${["hooks", "info", "objects/+info"].map(caselessName).join("|")})(/|$)|/\\.${caselessName("git")}/+(${["config", "config.worktree", "commondir", "gitdir"].map(caselessName).join("|")})$`;

/**
 * Writes under scope `"workspace"`: the workspace (minus `.git` itself and the git state git
 * executes or follows: `hooks/`, `info/`, `objects/info/`, `config`, `config.worktree`,
 * `commondir`, `gitdir`, in any case (see {@link CASELESS_GIT_STATE_PATTERN}), so host git cannot
 * be made to run planted code or read another repository) and a private temp directory. Only the
 * workspace's own `.git` is covered on macOS.
 */
const WORKSPACE_WRITE_RULES = `(allow file-write*
  (require-all
    (subpath (param "WORKSPACE"))
    (require-not (literal (param "GIT_DIR")))
    (require-not (subpath (param "GIT_HOOKS")))
    (require-not (subpath (param "GIT_INFO")))
    (require-not (subpath (param "GIT_OBJECTS_INFO")))
    (require-not (literal (param "GIT_CONFIG")))
    (require-not (literal (param "GIT_CONFIG_WORKTREE")))
    (require-not (literal (param "GIT_COMMONDIR")))
    (require-not (literal (param "GIT_GITDIR")))
    (require-not (require-all (subpath (param "GIT_DIR")) (regex #"${CASELESS_GIT_STATE_PATTERN}")))))
(allow file-write* (subpath (param "PRIVATE_TMPDIR")))`;

/** Writes under scope `"local"`: anywhere the user may write. The network stays denied. */
const LOCAL_WRITE_RULES = "(allow file-write*)";

/**
 * The SBPL profile for `sandbox-exec -p`. Paths are not spliced into it: they are `(param …)`
 * references filled by `-D` arguments (`sandboxExecParameters`), so no path can inject
 * profile syntax. `network*` is denied and no rule allows it, so TCP, UDP and unix-socket
 * connections all fail.
 */
export function sandboxExecProfile(scope: "local" | "workspace"): string {
  return `${BASE_RULES}\n${scope === "workspace" ? WORKSPACE_WRITE_RULES : LOCAL_WRITE_RULES}\n`;
}

/** What the workspace profile's parameters are filled from. */
export interface SandboxExecPaths {
  /** The workspace's real path (on macOS `/private/var/…`, not `/var/…`). */
  readonly workspace: string;
  /** A private, writable temp directory (its real path), given to the process as `TMPDIR`. */
  readonly temporaryDirectory: string;
}

/** The `-D` values of the workspace profile. */
export function sandboxExecParameters(paths: SandboxExecPaths): Record<string, string> {
  const gitDirectory = path.join(paths.workspace, ".git");
  return {
    WORKSPACE: paths.workspace,
    GIT_DIR: gitDirectory,
    GIT_HOOKS: path.join(gitDirectory, "hooks"),
    GIT_CONFIG: path.join(gitDirectory, "config"),
    GIT_INFO: path.join(gitDirectory, "info"),
    GIT_OBJECTS_INFO: path.join(gitDirectory, "objects", "info"),
    GIT_CONFIG_WORKTREE: path.join(gitDirectory, "config.worktree"),
    GIT_COMMONDIR: path.join(gitDirectory, "commondir"),
    GIT_GITDIR: path.join(gitDirectory, "gitdir"),
    PRIVATE_TMPDIR: paths.temporaryDirectory,
  };
}

/** The full `sandbox-exec` argument list: profile, parameters, `--`, then the command. */
export function sandboxExecArguments(
  profile: string,
  parameters: Readonly<Record<string, string>>,
  command: string,
  args: readonly string[],
): string[] {
  const defines = Object.entries(parameters).map(([name, value]) => `-D${name}=${value}`);
  return ["-p", profile, ...defines, "--", command, ...args];
}

/**
 * Variables read by the dynamic loader (`DYLD_*`; `LD_*` for tools that honour them) and by
 * libmalloc (`Malloc*`, which can make a process write log files) when a program starts: in
 * `sandbox-exec`'s own environment they would act on `sandbox-exec` itself, a host process that
 * runs before the profile applies (`DYLD_INSERT_LIBRARIES` naming a library the model wrote in the
 * workspace runs it with the host's rights wherever System Integrity Protection does not strip it:
 * SIP disabled, or an `executable` that is not a platform binary).
 */
const LAUNCHER_UNSAFE_VARIABLE = /^(?:DYLD_|LD_|Malloc)/;

/** The program that sets the moved variables inside the sandbox, after the profile applies. */
export const SANDBOX_EXEC_ENV_PATH = "/usr/bin/env";

/** What `sandbox-exec` is started with: its arguments and its own environment. */
export interface SandboxExecLaunch {
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * The `sandbox-exec` arguments and environment for one command. The command's environment is
 * `sandbox-exec`'s, except the variables that act on a program as it starts (loader and malloc
 * variables): those are left out of `sandbox-exec`'s and set by `/usr/bin/env NAME=VALUE` inside
 * the sandbox, so they reach the command (and what it starts) but never a host process. Only they
 * appear on the command line; the others (which may be secrets) stay off it. A command whose
 * path holds `=` (which `env` would take for a variable) is run through `/bin/sh -c 'exec "$0" "$@"'`.
 */
export function sandboxExecLaunch(
  profile: string,
  parameters: Readonly<Record<string, string>>,
  command: string,
  args: readonly string[],
  environment: Readonly<Record<string, string>>,
): SandboxExecLaunch {
  const env: Record<string, string> = {};
  const moved: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (LAUNCHER_UNSAFE_VARIABLE.test(name)) moved.push(`${name}=${value}`);
    else env[name] = value;
  }
  if (moved.length === 0) return { args: sandboxExecArguments(profile, parameters, command, args), env };
  const target = command.includes("=") ? ["/bin/sh", "-c", 'exec "$0" "$@"', command] : [command];
  return { args: sandboxExecArguments(profile, parameters, SANDBOX_EXEC_ENV_PATH, [...moved, ...target, ...args]), env };
}
