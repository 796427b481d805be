import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { describeProcessSandbox } from "./process-sandbox-suite.js";

// The control: the same probes that must fail under a sandbox succeed here, which shows that they
// can detect access at all.
describeProcessSandbox({
  name: "unsandboxed, scope unrestricted",
  skip: process.platform === "win32" ? "the suite's scripts use POSIX paths" : false,
  create: async ({ workspace }) => createProcessSandbox({ scope: "unrestricted", workspace }),
  expected: {
    network: true,
    unixSockets: true,
    readOutsideWorkspace: true,
    writeOutsideWorkspace: true,
    writeGitMetadata: true,
    hostEnvironment: true,
    sharedTmp: true,
  },
});
