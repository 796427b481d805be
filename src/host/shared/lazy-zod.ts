import type * as Zod from "zod";
import { loadSharedOnDemand } from "../../tool/load-on-demand.js";

// The host entry's tools describe their inputs with zod, which is 95 module files and most of the
// entry's import time; a host process (and every child process of the tests) that never creates a
// host tool should not pay for it. So zod is loaded, and each module's schemas built, when a tool
// factory first asks for them (the same zod instance the rest of the process imports, see
// loadSharedOnDemand); a process that creates the tools builds the same schemas as before.
const zod = loadSharedOnDemand<typeof Zod>("zod");

/**
 * A getter for schemas that `build` makes from zod on the first call (zod is loaded then), the
 * same object after.
 * @internal
 */
export function lazySchemas<Schemas>(build: (z: typeof Zod.z) => Schemas): () => Schemas {
  let built: Schemas | undefined;
  return () => {
    built ??= build(zod().z);
    return built;
  };
}
