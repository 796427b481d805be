import { ToolError } from "agent-tool-catalog";
import { ABSENT_FILE_VERSION } from "./file-version.js";

/**
 * The `version_conflict` of write, edit, replace and apply_patch when `expected_version` is not
 * the file's version, in one wording for all of them. `v_absent` on either side is said in words:
 * "is at v_1a2b, not v_absent: it changed since you read it" answered a model that asked for a
 * new file, and "is at v_absent" one whose file was removed.
 *
 * @param path - the path as the model wrote it
 * @param current - the file's version now ({@link ABSENT_FILE_VERSION} when there is none)
 * @param expected - the model's `expected_version`
 * @param outcome - what did not happen, for the message's last sentence ("Nothing was written.")
 * @param hint - what to do about a file changed since it was read
 */
export function versionConflict(path: string, current: string, expected: string, outcome: string, hint: string): ToolError {
  const data = { current };
  if (expected === ABSENT_FILE_VERSION) {
    return new ToolError(
      "version_conflict",
      `"${path}" already exists (at ${current}); ${expected} means it must not. ${outcome}`,
      {
        hint: "Read it and pass its version to change it, or use another path.",
        data,
      },
    );
  }
  if (current === ABSENT_FILE_VERSION) {
    return new ToolError(
      "version_conflict",
      `"${path}" does not exist (${current}), not at ${expected}: it was removed or moved since you read it. ${outcome}`,
      { hint: "Check the path with ls or glob; to create the file, write it with expected_version v_absent.", data },
    );
  }
  return new ToolError(
    "version_conflict",
    `"${path}" is at ${current}, not ${expected}: it changed since you read it. ${outcome}`,
    {
      hint,
      data,
    },
  );
}
