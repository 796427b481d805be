import { type AnyToolDefinition, defineTool } from "agent-tool-catalog";
import { z } from "zod";
import { byteCount } from "../sandbox/byte-count.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { commitFileChanges, readIfPresent, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import { refuseDirectorySpelling, refuseEmptyVersion } from "./file-errors.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { mutationPreflight } from "./mutation-preflight.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { versionConflict } from "./version-conflict.js";

const writeInput = z.object({
  path: z.string().min(1).describe("File to write (parents created)"),
  content: z.string(),
  append: z.boolean().optional(),
  expected_version: z.string().optional().describe('From your last read; "v_absent": must not exist'),
});

/**
 * `write`: atomic whole-file write or append, refused on a stale `expected_version`.
 *
 * @public
 */
export function createWriteTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createWriteTool");
  return defineTool({
    name: "write",
    description:
      "Create a new file, or replace or append to one, atomically. With expected_version from your last read, a changed file is refused and nothing is written.",
    inputSchema: writeInput,
    mutating: true,
    annotations: { title: "Create or write a file", destructiveHint: true },
    tags: ["builtin", "file", "fs", "write", "create", "new", "save"],
    preflight: mutationPreflight(options, (input: { path: string }) => [input.path]),
    handler: async (input, context) => {
      refuseEmptyVersion(input.expected_version);
      refuseDirectorySpelling(input.path);
      const scope = resolveFileScope(context, options);
      const before = await readIfPresent(scope, input.path);
      const current = versionOf(before);
      if (input.expected_version !== undefined && input.expected_version !== current) {
        throw versionConflict(
          input.path,
          current,
          input.expected_version,
          "Nothing was written.",
          "Read the file again, then write with its new version.",
        );
      }
      const contentAfter = (current: Buffer | undefined) =>
        input.append === true && current !== undefined
          ? Buffer.concat([current, Buffer.from(input.content)])
          : Buffer.from(input.content);
      let after = contentAfter(before);
      let wasAbsent = before === undefined;
      // Without expected_version, a file changed by another writer meanwhile is written anyway
      // (planned again on its current content under the lock), never a spurious conflict.
      const replan =
        input.expected_version === undefined
          ? async () => {
              const current = await readIfPresent(scope, input.path);
              after = contentAfter(current);
              wasAbsent = current === undefined;
              return [{ path: input.path, before: current, after }];
            }
          : undefined;
      await commitFileChanges(
        scope,
        "write",
        [{ path: input.path, before, after }],
        context.storage.get(EDIT_JOURNAL),
        replan === undefined ? { signal: context.signal } : { replan, signal: context.signal },
      );
      context.storage.get(READ_TRACKER).forget(await scope.resolve(input.path, "write"));
      const verb = wasAbsent ? "Created" : input.append === true ? "Appended to" : "Wrote";
      return `${verb} ${input.path} (${byteCount(after.length)}) · ${versionOf(after)}`;
    },
  });
}
