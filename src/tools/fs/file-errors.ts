import { ToolError } from "agent-tool-catalog";

/** Turns a Node file-system error into a `ToolError` the model can act on; other errors pass through. */
export function toFileToolError(error: unknown, displayPath: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new ToolError("file_not_found", `No file or directory at "${displayPath}".`, {
        hint: "Check the path with ls or glob.",
      });
    case "EISDIR":
      return new ToolError("is_a_directory", `"${displayPath}" is a directory, not a file.`, {
        hint: "Use ls to list a directory.",
      });
    case "ENOTDIR":
      return new ToolError("not_a_directory", `A part of "${displayPath}" is not a directory.`);
    case "EACCES":
    case "EPERM":
      return new ToolError("permission_denied", `Permission denied for "${displayPath}".`);
    case "ELOOP":
      return new ToolError("symlink_refused", `"${displayPath}" is a symbolic link, which is not followed here.`);
    case "EEXIST":
      return new ToolError("file_exists", `"${displayPath}" already exists.`);
    default:
      return error;
  }
}
