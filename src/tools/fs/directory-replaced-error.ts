/**
 * A grouped transaction (see `applyInGroups`) opened a file's directory again and found another
 * one at its path (moved or replaced meanwhile, by device and inode). Told to the model as the
 * one-group path tells a directory swapped under a change: `version_conflict`, read it again.
 */
export class DirectoryReplacedError extends Error {
  constructor() {
    super("its directory was moved or replaced during the change");
    this.name = "DirectoryReplacedError";
  }
}
