import { escapeLoneSurrogates, wellFormed } from "./well-formed-text.js";

// Keys of an output are made well-formed like its strings (providers refuse a lone surrogate),
// but two keys that differ only in their lone surrogates ("a\uD800" and "a\uDC00") would both
// become "a\uFFFD", and the copy would keep only the last value: data lost without a trace.
// Each key of one object is therefore given a name no other key of it has.

/**
 * The names the keys of one object are copied under, every one well-formed and no two alike.
 * A well-formed key keeps its name (so a well-formed object is copied unchanged). A key with a
 * lone surrogate gets the first of these that no key of the object has and no earlier key took:
 * its lone surrogates replaced by U+FFFD (`"a\uFFFD"`); else written out as JSON escapes
 * (`"a\\ud800"`, as text); else that with ` (2)`, ` (3)`, ... after it. Keys are named in the
 * object's own key order, so the same object always gets the same names.
 */
export class OutputKeys {
  /** Every name in use: the object's own keys, then the names given to repaired ones. */
  private taken: Set<string> | undefined;

  /** @param keys - every own key of the object, in order (`Object.keys`) */
  constructor(private readonly keys: readonly string[]) {}

  /** The name `key` (one of the object's keys) is copied under. */
  nameOf(key: string): string {
    const repaired = wellFormed(key);
    if (repaired === key) return key;
    return this.claim(repaired, escapeLoneSurrogates(key));
  }

  /** A name for an entry the copy adds (a marker), `preferred` unless a key of the object has it. */
  added(preferred: string): string {
    return this.taken === undefined && !this.keys.includes(preferred) ? preferred : this.claim(preferred, preferred);
  }

  private claim(first: string, second: string): string {
    // Built only for an object that needs it: most outputs have no key to repair.
    this.taken ??= new Set(this.keys);
    let name = first;
    if (this.taken.has(name)) name = second;
    for (let count = 2; this.taken.has(name); count++) name = `${second} (${count})`;
    this.taken.add(name);
    return name;
  }
}
