/**
 * glibc malloc settings for the git processes that build and read fixtures (never the git a
 * tool under test starts): keep the top of the heap (trim threshold and top pad) instead of
 * handing it back to the kernel at each free. git frees and allocates again buffers of hundreds of
 * KiB per object (zlib streams, fast-import's delta index per blob, a buffer per tree); with the
 * heap trimmed each time, most of its time went to `brk` and the kernel zeroing the same pages
 * again (`strace -c` of tree-diff-shapes' fast-import: brk 99.9% of its system time, 48,000
 * calls). Alone, at load 6-19 on 2 cores, without -> with:
 * - fast-import of a path 3,000 directories deep (4 commits): 15.8 s wall, 6.7 CPU-s -> 0.5 s, 0.1;
 * - fast-import of one commit of 6,000 small files: 28.5 s, 4.2 CPU-s -> 1.1 s, 0.2;
 * - `git add -A` of 3,000 small files: 17.7 and 33.4 s, 3.1 and 4.3 CPU-s -> 5.7 s, 1.2; its `git gc` 1.0 -> 0.6 CPU-s.
 * What git writes is the same (fast-import's pack byte for byte: the same pack name); other libcs
 * ignore the variable.
 */
export const GIT_MALLOC = "glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864";

/** `base` (default: this process's environment) with {@link GIT_MALLOC}, for a fixture's `git fast-import`. */
export function gitMallocEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, GLIBC_TUNABLES: GIT_MALLOC };
}
