import { rmSync } from "node:fs";
import path from "node:path";
import { FixtureRepository } from "./git-fixture.js";
import { amplifyingChain, blobId, writeHostilePack } from "./hostile-pack.js";

/**
 * A repository whose HEAD:a.txt is `tip`, its loose blob removed so it is read from an
 * {@link amplifyingChain} of `links` links of `linkBytes` each: reading it costs `links` rebuilds.
 */
export function deltaChainRepository(label: string, links: number, linkBytes: number, tip: string): string {
  const fixture = FixtureRepository.create(label);
  fixture.write("a.txt", "one\n").commit("first", { name: "a", email: "a@b" });
  fixture.write("a.txt", tip).commit("second", { name: "a", email: "a@b" });
  const id = blobId(tip);
  rmSync(path.join(fixture.directory, ".git", "objects", id.slice(0, 2), id.slice(2)));
  writeHostilePack(path.join(fixture.directory, ".git", "objects"), amplifyingChain(links, linkBytes, tip));
  return fixture.directory;
}
