/** One `key = value` line of a git config, its key as the kept-config allowlist spells it. */
export interface ConfigAssignment {
  /** `core.worktree`, `remote.<name>.url`: section and key lower-cased, a subsection as `<name>`. */
  readonly key: string;
  /** The text after `=`, untrimmed; `undefined` for a key with no `=`. */
  readonly value: string | undefined;
}

/**
 * A config line with git's spaces (space, tab, CR) dropped at both ends, as git's parser skips
 * them, and a UTF-8 byte order mark at its start (git skips one at the file's): `trim` also
 * dropped a trailing `\v` or U+00A0 git keeps in the value (`url = ../u<VT>` names `u<VT>`).
 */
export function configLine(raw: string): string {
  return raw.replace(/^\uFEFF/, "").replace(/^[ \t\r]+|[ \t\r]+$/g, "");
}

/**
 * The assignments of a config's text in the simple one-key-a-line form git writes (`[core]`,
 * `[remote "origin"]`, `key = value`); lines in any other form (the old `[branch.main]` header, a
 * continued value) are skipped, so this serves checks on a config the host keeps, not the
 * judgement of one the command wrote (configKept refuses such lines instead).
 */
export function configAssignments(text: string): ConfigAssignment[] {
  const assignments: ConfigAssignment[] = [];
  let section: string | undefined;
  for (const raw of text.split("\n")) {
    const line = configLine(raw);
    const header = /^\[([A-Za-z0-9-]+)(\s+"(?:[^"\\]|\\.)*")?\]$/.exec(line);
    if (header !== null) {
      section = `${header[1]?.toLowerCase()}${header[2] === undefined ? "" : ".<name>"}`;
      continue;
    }
    const assignment = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (section !== undefined && assignment !== null && !line.endsWith("\\")) {
      assignments.push({ key: `${section}.${assignment[1]?.toLowerCase()}`, value: assignment[2] });
    }
  }
  return assignments;
}
