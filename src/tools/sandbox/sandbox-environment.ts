/**
 * Host variables a confined process inherits: enough for tools to find programs and print text,
 * nothing that could carry a credential. Everything else (`*_TOKEN`, `*_KEY`, `AWS_*`,
 * `SSH_AUTH_SOCK`, `NPM_TOKEN`, …) stays on the host unless the caller passes it explicitly.
 * @public
 */
export const SAFE_ENVIRONMENT_NAMES: readonly string[] = Object.freeze([
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_COLLATE",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_NUMERIC",
  "LC_TIME",
  "TERM",
  "TZ",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
]);

/** `PATH` when the host has none. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Options of {@link confinedEnvironment}. */
export interface ConfinedEnvironmentOptions {
  /** `HOME` and `TMPDIR` inside the sandbox: a private, writable directory. */
  readonly home: string;
  /** The host's variables. @defaultValue `process.env` */
  readonly hostEnvironment?: Readonly<Record<string, string | undefined>>;
}

/**
 * The environment of a process under scope `"workspace"`: the safe host variables, a private
 * `HOME`/`TMPDIR`, then the caller's explicit variables (which win).
 */
export function confinedEnvironment(
  explicit: Readonly<Record<string, string>> | undefined,
  options: ConfinedEnvironmentOptions,
): Record<string, string> {
  const host = options.hostEnvironment ?? process.env;
  const environment: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const name of SAFE_ENVIRONMENT_NAMES) {
    const value = Object.hasOwn(host, name) ? host[name] : undefined;
    if (value !== undefined) environment[name] = value;
  }
  environment.HOME = options.home;
  environment.TMPDIR = options.home;
  return { ...environment, ...explicit };
}

/** The environment of a process under scope `"local"` or `"unrestricted"`: the host's, plus the explicit variables. */
export function inheritedEnvironment(
  explicit: Readonly<Record<string, string>> | undefined,
  hostEnvironment: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnvironment)) if (value !== undefined) environment[name] = value;
  return { ...environment, ...explicit };
}
