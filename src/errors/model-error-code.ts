/**
 * Every error code the model can read in a failed tool result (`result.error.code`), with what it
 * means. This is the one list: the README table is generated from it (a test checks they agree),
 * and a test checks that every `new ToolError("<code>"` literal in the library is in it.
 * Hosts may add their own codes through `ToolError`; those are not listed here.
 * @public
 */
export const MODEL_ERROR_CODES = Object.freeze({
  // The run itself: visibility, input, policy, output, cancellation.
  unknown_tool: "No tool has that name; `suggestions` lists the closest ones.",
  tool_not_activated: "A deferred tool exists but must be activated with `find_tool` first.",
  tool_not_allowed: "The tool exists but this run (allowedTools, a skill) does not allow it.",
  tool_disabled: "The tool is turned off in this run's profile or configuration.",
  use_toolbox: "The tool is listed behind `toolbox`; call it through `toolbox`.",
  invalid_input:
    "The arguments do not match the input schema, or are not JSON data (a cycle, a function, a throwing getter or proxy: the message says which); `issues` says where (capped, values never quoted).",
  input_schema_too_slow:
    "Compiling the tool's untrusted input schema (an MCP server's), or checking these arguments against it, took longer than its time limit (CPU time of the checking thread where measurable) or more memory than its check thread may use (170 MB); the message says which. Use another tool, or simpler arguments when it was the check.",
  input_too_large: "The arguments are larger than the run's `maxInputLength` (strings and objects alike).",
  tool_failed: "The handler threw something that is not a `ToolError`.",
  invalid_output: "The handler's output could not be sent or does not match its `outputSchema` (the tool's fault).",
  too_many_calls: "The run has as many calls in flight as it may (`maxCallsInFlight`); wait for some to finish.",
  aborted: "The call was cancelled (the host's signal, `run.close()`, `registry.close()`).",
  approval_denied:
    "A person, or the approval timeout, did not approve the call, or the approval service failed to take the request; nothing was done.",
  internal_error: "The catalog itself failed while handling the call (e.g. a host listener threw).",
  duplicate_call_id:
    "The model's step used one call id twice, or another process continuing the run is running that id: the call with that id already running (or answered in the same message) is the one that ran; this one was not run.",
  invalid_call_id:
    "The call's id (the provider's or the host's) is over 512 characters; the tool was not run. Call it again: each call needs a short id of its own.",
  redis_timeout:
    "The durable state store (Redis) did not answer in time. The message says whether the action may still take effect (`mayHaveRun`); the hint says to check before retrying when it may, else to retry in a few seconds.",
  call_interrupted:
    "The process that was running the call stopped and the run was resumed elsewhere: while the call waited for approval, the tool did not run; once approved, it may have run in whole or in part (the message says which).",
  // Files, paths and the sandbox.
  file_not_found: "The file does not exist.",
  file_exists: "The file already exists and the call does not overwrite.",
  is_a_directory: "A file was expected, the path is a directory.",
  not_a_directory: "A directory was expected, the path is not one.",
  not_a_file: "A file was expected, the path is something else.",
  not_a_regular_file: "The path is not a regular file (a device, a socket, a FIFO).",
  binary_file: "The file is binary; the tool only handles text.",
  permission_denied: "The operating system refused access.",
  read_only_file_system: "The file system is read-only.",
  no_space: "The disk is full.",
  name_too_long: "A file name or path is too long for the file system.",
  too_many_open_files: "The process has too many open files; try again later.",
  file_system_error: "The file system reported another error.",
  file_locked: "Another process holds the file's lock; try again.",
  write_failed: "Writing the change failed for a reason the file system did not name; no file was changed.",
  state_directory_unsafe: "The library's private state directory is not private; the host must fix it.",
  partially_applied: "A multi-file change stopped part way; the result says which files changed.",
  git_metadata_refused: "The path is inside git metadata (.git), which file tools do not change.",
  outside_workspace: "The path is outside the run's workspace.",
  path_outside_workspace: "The path resolves outside the workspace.",
  invalid_path: "The path is malformed (empty, NUL byte, not allowed form).",
  symlink_refused: "The path goes through a symbolic link the tool refuses to follow.",
  symlink_escape: "A symbolic link points outside the workspace.",
  dangling_symlink_refused: "The path is a symbolic link to nothing.",
  hard_link_refused: "The file has several hard links and is refused.",
  special_file_refused: "The path is a special file (device, socket, FIFO) and is refused.",
  too_large: "The content is larger than the tool accepts.",
  version_conflict: "The file changed since it was read; read it again.",
  nothing_to_undo: "There is no change of this run to undo.",
  redo_disabled: "Redo is turned off in this configuration.",
  invalid_anchor: "A line anchor does not match the file's current content.",
  invalid_pattern: "A glob or regular expression is invalid.",
  pattern_too_slow: "The search pattern took too long to match; simplify it.",
  engine_unavailable: "The requested search engine is not available.",
  stale_anchor: "The hashline anchor no longer matches the line; read the file again.",
  offset_out_of_range: "The read offset is past the end of the file.",
  changed_since: "The file changed after the edit to undo; undo refused.",
  download_failed: "The download failed.",
  // Edits and patches.
  no_match: "The text to replace was not found.",
  ambiguous_match: "The text to replace occurs more than once.",
  empty_old_text: "The text to replace is empty.",
  content_mismatch: "The file does not have the content the patch expects.",
  context_not_found: "A hunk's context lines were not found.",
  patch_parse_error: "The patch could not be parsed.",
  unsupported_patch: "The patch uses a form the tool does not support.",
  // Processes and the shell.
  invalid_command: "The command is empty or malformed.",
  timeout: "The operation took longer than its time limit.",
  cancelled: "The operation was cancelled.",
  sandbox_unavailable: "The sandbox the run needs is not available on this machine.",
  run_limit_reached:
    "The run's running commands (parallel `bash` calls, `monitor` background commands) already hold its process or memory totals (`runLimits`), and none ended within the wait (the message says which limit and which commands hold it, or which earlier requests it queued behind): wait for them, stop a background command, or run fewer at once. Or the command's own per-command limit is above the run's total, so it could never start: the host must change the option the message names.",
  shell_execution_unavailable: "Shell commands cannot run in this host.",
  harness_execution_unavailable: "The harness cannot run commands in this host.",
  // Web.
  invalid_url: "The URL is malformed.",
  unsupported_url: "The URL's scheme is not supported.",
  url_not_allowed: "The URL is not allowed by the run's policy (private address, blocked host).",
  address_not_allowed: "The URL resolves to an address the run does not allow (private, loopback).",
  http_error: "The server answered with an error status.",
  fetch_failed: "The request could not be made (network, DNS, TLS).",
  too_many_redirects: "The URL redirected too many times.",
  unsupported_content_type: "The response's content type is not supported.",
  sourcegraph_error: "The Sourcegraph API failed.",
  sourcegraph_unreachable: "The Sourcegraph server could not be reached.",
  // Git.
  no_repository: "No git repository was found at the path.",
  not_a_git_repository: "The path is not inside a git repository.",
  empty_repository: "The repository has no commits yet.",
  unknown_ref: "No branch, tag or commit has that name.",
  ambiguous_ref: "The name matches more than one ref or commit.",
  invalid_ref: "The revision is malformed.",
  no_merge_base: "The two sides of an `A...B` range share no history, so there is no merge base to diff from.",
  invalid_since: "The `since` date or revision is malformed.",
  path_outside_repository: "The path is outside the repository.",
  path_not_found: "The path does not exist at that revision.",
  line_out_of_range: "The line range is outside the file.",
  shallow_clone: "History needed for the answer is cut off by a shallow clone.",
  missing_object: "The repository lacks an object (a partial clone or damage).",
  corrupt_object:
    "A repository file (object, pack, pack index, commit-graph, a ref or `HEAD`) is damaged or hostile: a delta cycle, a lying size, an offset out of range, a FIFO or socket in place of a file; the git tools refuse it rather than read on.",
  repository_outside_workspace:
    "The repository's files lead outside the workspace (a .git file, commondir, alternates or a symbolic link); the git tools refuse it.",
  // MCP.
  mcp_connect_failed: "The MCP server could not be connected.",
  mcp_request_failed: "A request to the MCP server failed.",
  mcp_server_closed: "The MCP server closed.",
  mcp_server_error: "The MCP server returned an error.",
  mcp_server_exists: "An MCP server of that name is connected already.",
  mcp_server_limit: "The run connected as many MCP servers as it may.",
  mcp_server_unavailable: "The MCP server is not available.",
  mcp_tool_error: "The MCP tool reported an error.",
  mcp_timeout: "The MCP server did not answer in time.",
  mcp_output_too_large: "The MCP tool's output is larger than the limit.",
  mcp_malformed_result: "The MCP server sent a result that does not follow the protocol.",
  mcp_url_not_allowed: "The MCP server URL is not allowed.",
  unknown_mcp_server: "No MCP server has that name.",
  // Host tools: skills, profiles, agents, workflows, recipes, cron, questions, todos.
  invalid_name: "The name is not allowed.",
  invalid_skill: "The skill file is malformed.",
  unknown_skill: "No skill has that name.",
  skill_exists: "A skill of that name exists already.",
  unknown_profile: "No profile has that name.",
  profile_exists: "A profile of that name exists already.",
  builtin_profile: "A built-in profile cannot be changed.",
  invalid_profile: "The profile is malformed.",
  unknown_pack: "No tool pack has that name.",
  unknown_subagent: "No sub-agent has that id.",
  not_a_child_agent: "The agent is not a child of this run.",
  too_many_subagents: "The run started as many sub-agents as it may.",
  subagent_cancelled: "The sub-agent was cancelled.",
  swarm_too_large: "The swarm asks for more sub-agents than allowed.",
  budget_exceeded: "The swarm's budget ran out.",
  max_fork_depth_exceeded: "Sub-agents may not nest deeper.",
  skill_constraint_unavailable: "The skill's tool constraint cannot be applied in this run.",
  fork_unavailable: "The skill asks for a forked context, which this host cannot give.",
  unknown_workflow: "No workflow has that name.",
  unknown_workflow_run: "No workflow run has that id.",
  invalid_workflow_args: "The workflow's arguments are invalid.",
  workflow_failed: "The workflow failed.",
  resume_refused: "The workflow run cannot be resumed.",
  unknown_recipe: "No recipe has that name.",
  invalid_recipe: "The recipe is malformed.",
  unknown_variables: "The recipe names variables it does not declare.",
  unexpected_variables: "Variables were given that the recipe does not take.",
  unknown_job: "No scheduled job has that id.",
  duplicate_job_name: "A scheduled job of that name exists already.",
  invalid_job_state: "The job cannot do that in its current state.",
  invalid_schedule: "The schedule expression is invalid.",
  missing_command: 'A "shell" job needs a non-empty command.',
  unexpected_command: 'A "harness" job takes a prompt, not a command.',
  missing_prompt: 'A "harness" job needs a non-empty prompt.',
  unexpected_prompt: 'A "shell" job takes a command, not a prompt.',
  scheduler_closed: "The scheduler is closed.",
  unknown_callback: "No pending callback of this conversation has that id.",
  invalid_delay: "The callback delay is invalid.",
  too_many_callbacks: "The run scheduled as many callbacks as it may.",
  question_dismissed: "The user dismissed the question.",
  question_timeout: "Nobody answered the question in time.",
  unknown_todo: "No todo item has that id.",
  unknown_monitor: "No monitor has that id.",
  too_many_monitors: "The run started as many monitors as it may.",
  run_closed:
    "The run was closed, or (a child run's command) a parent run whose resource budget it draws on was closed: nothing more can run.",
  prompt_extension_exists: "A prompt extension of that name exists already.",
  too_many_todos: "The todo list is full.",
} as const);

/**
 * An error code the model can see; see {@link MODEL_ERROR_CODES} and the README table.
 *
 * @public
 */
export type ModelErrorCode = keyof typeof MODEL_ERROR_CODES;

/**
 * True when `code` is one of the library's {@link ModelErrorCode}s.
 *
 * @public
 */
export function isModelErrorCode(code: unknown): code is ModelErrorCode {
  return typeof code === "string" && Object.hasOwn(MODEL_ERROR_CODES, code);
}

/** The README table of {@link MODEL_ERROR_CODES} (the test checks the README holds exactly this). */
export function modelErrorCodeTable(): string {
  const rows = Object.entries(MODEL_ERROR_CODES).map(([code, meaning]) => `| \`${code}\` | ${meaning} |`);
  return ["| Code | Meaning |", "| --- | --- |", ...rows].join("\n");
}
