/**
 * The kind questions a stat answers. Node's `Stats` answers all of them; a host's fs client
 * (isomorphic-git's, for the git tools) may answer only some, and a question it does not answer
 * is taken as "no".
 */
export interface SpecialFileStats {
  isFIFO?(): boolean;
  isSocket?(): boolean;
  isCharacterDevice?(): boolean;
  isBlockDevice?(): boolean;
}

/**
 * What a FIFO, socket or device is, in the one wording every model-visible message uses
 * (`named pipe (FIFO)`, `socket`, `character device`, `block device`; each reads after "a");
 * `undefined` for any other file. The file tools' refusals, grep's note on why ripgrep was not
 * run, the git tools' damaged-repository error and the host stores' broken entries all say it
 * this way, so a model that met one of them recognizes the others.
 */
export function specialFileKind(stats: SpecialFileStats): string | undefined {
  if (stats.isFIFO?.() === true) return "named pipe (FIFO)";
  if (stats.isSocket?.() === true) return "socket";
  if (stats.isCharacterDevice?.() === true) return "character device";
  return stats.isBlockDevice?.() === true ? "block device" : undefined;
}
