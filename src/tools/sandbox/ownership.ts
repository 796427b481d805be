/** The part of a file's stats that says who may change it. */
export interface OwnershipStats {
  readonly uid: number | bigint;
  readonly mode: number | bigint;
}

/**
 * Why nobody but `owners` is kept from changing a file or directory, or `undefined` when only
 * they can: it must be owned by one of `owners` and not writable by group or others. Shared by
 * the trusted-executable check (owners: root) and the library's private state directory (owner:
 * this user), so both refuse the same things.
 */
export function ownershipProblem(stats: OwnershipStats, owners: readonly number[]): "foreign_owner" | "shared_write" | undefined {
  if (!owners.includes(Number(stats.uid))) return "foreign_owner";
  if ((Number(stats.mode) & 0o022) !== 0) return "shared_write";
  return undefined;
}
