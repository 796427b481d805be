/** One exact text replacement, in the shape a model sends it. */
export interface TextEdit {
  /** The text to find; must occur exactly once unless `replace_all`. Must not be empty. */
  readonly old_text: string;
  /** The text to put in its place. Its line breaks take the line ending of the text it replaces. */
  readonly new_text: string;
  /**
   * Replace every occurrence instead of requiring exactly one.
   * @defaultValue false
   */
  readonly replace_all?: boolean | undefined;
}

/**
 * What to apply. The patch formats models write (unified diff, Codex `*** Begin Patch`) and the
 * two edit shapes (a list of replacements, one find/replace) all reduce to the same plan, so the
 * tool layer has one write path for all of them.
 */
export type PatchInput =
  | {
      /** A git-style or plain unified diff, possibly for several files. */
      readonly kind: "unified";
      readonly patch: string;
    }
  | {
      /** The Codex `apply_patch` format (`*** Begin Patch` ... `*** End Patch`). */
      readonly kind: "codex";
      readonly patch: string;
    }
  | {
      /** Exact replacements in one file, applied in order, each on the result of the previous. */
      readonly kind: "edits";
      readonly path: string;
      readonly edits: readonly TextEdit[];
    }
  | {
      /** One exact find/replace in one file. */
      readonly kind: "replace";
      readonly path: string;
      readonly find: string;
      readonly replace: string;
      /**
       * Replace every occurrence instead of requiring exactly one.
       * @defaultValue false
       */
      readonly replace_all?: boolean | undefined;
    };
