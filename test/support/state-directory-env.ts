const NAMES = ["AGENT_TOOL_CATALOG_LOCK_DIR", "AGENT_TOOL_CATALOG_STATE_DIR"] as const;

/**
 * Remembers where the catalog's lock and state directories point now (their environment
 * variables) and returns the function that puts them back, unset ones unset, for tests that
 * move them into a temporary directory or a small tmpfs.
 */
export function saveStateDirectoryEnv(): () => void {
  const saved = NAMES.map((name) => [name, process.env[name]] as const);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
