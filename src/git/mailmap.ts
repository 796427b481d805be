/** A person as a commit names them. */
export interface Identity {
  /** The name. */
  readonly name: string;
  /** The e-mail address. */
  readonly email: string;
}

interface Mapping {
  name?: string;
  email?: string;
}

interface Entry extends Mapping {
  /** Mappings for one commit name at this address (`Proper <proper> Commit Name <commit>`), by lower-cased name. */
  readonly names: Map<string, Mapping>;
}

/** One `Name <email>` of a line: the name (`undefined` when empty), the address, and the rest after `>`. */
function nameAndEmail(text: string, allowEmptyEmail: boolean) {
  const left = text.indexOf("<");
  const right = left < 0 ? -1 : text.indexOf(">", left + 1);
  if (right < 0 || (!allowEmptyEmail && right === left + 1)) return undefined;
  const name = text.slice(0, left).trim();
  return { name: name === "" ? undefined : name, email: text.slice(left + 1, right), rest: text.slice(right + 1) };
}

/**
 * A `.mailmap` (gitmailmap(5)), read as git's mailmap.c reads it: `Proper Name <commit@email>`,
 * `<proper@email> <commit@email>`, `Proper Name <proper@email> <commit@email>` and
 * `Proper Name <proper@email> Commit Name <commit@email>`; addresses and names match without
 * regard to case; a line starting with `#` is a comment. `git shortlog`, `git log` (log.mailmap,
 * on by default) and `git blame` show the mapped name and address.
 */
export class Mailmap {
  private readonly entries = new Map<string, Entry>();

  /** Parses the text of a `.mailmap` file (an empty or missing one maps nobody). */
  constructor(text = "") {
    for (const line of text.split("\n")) {
      if (line.startsWith("#")) continue;
      const first = nameAndEmail(line, false);
      if (first === undefined) continue;
      const second = first.rest.trim() === "" ? undefined : nameAndEmail(first.rest, true);
      this.add(first.name, first.email, second?.name, second?.email);
    }
  }

  /** True when the file mapped nobody: callers can skip mapping. */
  get empty(): boolean {
    return this.entries.size === 0;
  }

  private add(
    newName: string | undefined,
    newEmail: string | undefined,
    oldName: string | undefined,
    oldEmail: string | undefined,
  ) {
    let [email, replacement] = [oldEmail, newEmail];
    if (email === undefined) [email, replacement] = [newEmail, undefined];
    if (email === undefined) return;
    const key = email.toLowerCase();
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { names: new Map() };
      this.entries.set(key, entry);
    }
    let target: Mapping = entry;
    if (oldName !== undefined) {
      const nameKey = oldName.toLowerCase();
      target = entry.names.get(nameKey) ?? {};
      entry.names.set(nameKey, target);
    }
    if (newName !== undefined) target.name = newName;
    if (replacement !== undefined) target.email = replacement;
  }

  /** The name and address git shows for `who` (itself when no line maps it). */
  map(who: Identity): Identity {
    const entry = this.entries.get(who.email.toLowerCase());
    if (entry === undefined) return who;
    const mapping = entry.names.get(who.name.toLowerCase()) ?? entry;
    if (mapping.name === undefined && mapping.email === undefined) return who;
    return { name: mapping.name ?? who.name, email: mapping.email ?? who.email };
  }
}

/** The mailmap that maps nobody. */
export const NO_MAILMAP = new Mailmap();
