import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { describeProcessSandbox } from "./process-sandbox-suite.js";

const skip = process.platform === "linux" ? false : "bubblewrap runs on Linux only";

describeProcessSandbox({
  name: "bubblewrap, scope workspace",
  skip,
  create: async ({ workspace }) => createProcessSandbox({ scope: "workspace", workspace }),
  expected: {
    network: false,
    unixSockets: false,
    readOutsideWorkspace: false,
    writeOutsideWorkspace: false,
    writeGitMetadata: false,
    hostEnvironment: false,
    sharedTmp: false,
  },
});

describeProcessSandbox({
  name: "bubblewrap, scope local",
  skip,
  create: async ({ workspace }) => createProcessSandbox({ scope: "local", workspace }),
  expected: {
    network: false,
    unixSockets: false,
    readOutsideWorkspace: true,
    writeOutsideWorkspace: true,
    writeGitMetadata: true,
    hostEnvironment: true,
    sharedTmp: true,
  },
});
