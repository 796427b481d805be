import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { capability } from "../support/capabilities.js";
import { describeProcessSandbox } from "./process-sandbox-suite.js";

const bubblewrap = capability("bubblewrap");
const skip = bubblewrap.missing ? (bubblewrap.reason as string) : false;

describeProcessSandbox({
  name: bubblewrap.label("bubblewrap, scope workspace"),
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
  name: bubblewrap.label("bubblewrap, scope local"),
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
