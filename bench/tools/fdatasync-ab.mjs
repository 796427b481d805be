// Whether fdatasync(2) would be cheaper than fsync(2) for the temporary files of a change, as
// file-transaction.ts writes them: a new file (O_EXCL, mode 0600), its bytes, an fchmod, the
// flush, a close and a rename over an existing file; 380 files of 17,000 bytes (the real diff's
// changed files and their mean size). Prints the process's CPU (user + system, system) and wall.
//
//   node bench/tools/fdatasync-ab.mjs fsync|fdatasync <directory on the file system to test>
//
// Run the two alternately (bench/results/fdatasync-s51.json).
import { closeSync, fchmodSync, fdatasyncSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

const [mode, base] = process.argv.slice(2);
const flush = mode === "fsync" ? fsyncSync : fdatasyncSync;
const dir = mkdtempSync(join(base, "ds-"));
const bytes = Buffer.alloc(17_000, 97);
const files = 380;
// The files the change replaces, there before the clock starts.
for (let i = 0; i < files; i++) {
  const fd = openSync(join(dir, `t${i}`), "wx");
  writeSync(fd, bytes);
  closeSync(fd);
}
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
for (let i = 0; i < files; i++) {
  const temporary = join(dir, `.tmp${i}`);
  const fd = openSync(temporary, "wx", 0o600);
  writeSync(fd, bytes);
  fchmodSync(fd, 0o644);
  flush(fd);
  closeSync(fd);
  renameSync(temporary, join(dir, `t${i}`));
}
const cpu = process.cpuUsage(cpuBefore);
const wall = performance.now() - wallBefore;
console.log(mode, ((cpu.user + cpu.system) / 1000).toFixed(1), (cpu.system / 1000).toFixed(1), wall.toFixed(0));
rmSync(dir, { recursive: true });
