# Transcribes tool definitions read from github.com/modelcontextprotocol/servers (MIT) into tools.jsonl.
# Kept only so the provenance of each entry is visible; tools.jsonl is the data the bench reads.
import json
P = lambda n, d=None: {"name": n, **({"description": d} if d else {})}
tools = []
def add(server, name, description, params, title=None, source=""):
    tools.append({"id": f"{server}.{name}", "server": server, "name": name, "description": description,
                  **({"title": title} if title else {}), "parameters": params, "source": source})

S = "src/slack/index.ts@176843dc"
add("slack", "slack_list_channels", "List channels the app has access to with pagination", [P("limit", "Maximum number of channels to return (default 100, max 200)"), P("cursor", "Pagination cursor for next page of results")], source=S)
add("slack", "slack_post_message", "Post a new message to a Slack channel", [P("channel_id", "The ID of the channel to post to"), P("text", "The message text to post")], source=S)
add("slack", "slack_reply_to_thread", "Reply to a specific message thread in Slack", [P("channel_id", "The ID of the channel containing the thread"), P("thread_ts", "The timestamp of the parent message in the format '1234567890.123456'. Timestamps in the format without the period can be converted by adding the period such that 6 numbers come after it."), P("text", "The reply text")], source=S)
add("slack", "slack_add_reaction", "Add a reaction emoji to a message", [P("channel_id", "The ID of the channel containing the message"), P("timestamp", "The timestamp of the message to react to"), P("reaction", "The name of the emoji reaction (without ::)")], source=S)
add("slack", "slack_get_channel_history", "Get recent messages from a channel", [P("channel_id", "The ID of the channel"), P("limit", "Number of messages to retrieve (default 10)")], source=S)
add("slack", "slack_get_thread_replies", "Get all replies in a message thread", [P("channel_id", "The ID of the channel containing the thread"), P("thread_ts", "The timestamp of the parent message in the format '1234567890.123456'. Timestamps in the format without the period can be converted by adding the period such that 6 numbers come after it.")], source=S)
add("slack", "slack_get_users", "Get a list of all users in the workspace with their basic profile information", [P("cursor", "Pagination cursor for next page of results"), P("limit", "Maximum number of users to return (default 100, max 200)")], source=S)
add("slack", "slack_get_user_profile", "Get detailed profile information for a specific user", [P("user_id", "The ID of the user")], source=S)

S = "src/google-maps/index.ts@7320633f"
add("google-maps", "maps_geocode", "Convert an address into geographic coordinates", [P("address", "The address to geocode")], source=S)
add("google-maps", "maps_reverse_geocode", "Convert coordinates into an address", [P("latitude", "Latitude coordinate"), P("longitude", "Longitude coordinate")], source=S)
add("google-maps", "maps_search_places", "Search for places using Google Places API", [P("query", "Search query"), P("location", "Optional center point for the search"), P("latitude"), P("longitude"), P("radius", "Search radius in meters (max 50000)")], source=S)
add("google-maps", "maps_place_details", "Get detailed information about a specific place", [P("place_id", "The place ID to get details for")], source=S)
add("google-maps", "maps_distance_matrix", "Calculate travel distance and time for multiple origins and destinations", [P("origins", "Array of origin addresses or coordinates"), P("destinations", "Array of destination addresses or coordinates"), P("mode", "Travel mode (driving, walking, bicycling, transit)")], source=S)
add("google-maps", "maps_elevation", "Get elevation data for locations on the earth", [P("locations", "Array of locations to get elevation for"), P("latitude"), P("longitude")], source=S)
add("google-maps", "maps_directions", "Get directions between two points", [P("origin", "Starting point address or coordinates"), P("destination", "Ending point address or coordinates"), P("mode", "Travel mode (driving, walking, bicycling, transit)")], source=S)

S = "src/memory/index.ts@0103dfb4"
ENTITY = [P("name", "The name of the entity"), P("entityType", "The type of the entity"), P("observations", "An array of observation contents associated with the entity")]
RELATION = [P("from", "The name of the entity where the relation starts"), P("to", "The name of the entity where the relation ends"), P("relationType", "The type of the relation")]
add("memory", "create_entities", "Create multiple new entities in the knowledge graph", [P("entities")] + ENTITY, "Create Entities", S)
add("memory", "create_relations", "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice", [P("relations")] + RELATION, "Create Relations", S)
add("memory", "add_observations", "Add new observations to existing entities in the knowledge graph", [P("observations"), P("entityName", "The name of the entity to add the observations to"), P("contents", "An array of observation contents to add")], "Add Observations", S)
add("memory", "delete_entities", "Delete multiple entities and their associated relations from the knowledge graph", [P("entityNames", "An array of entity names to delete")], "Delete Entities", S)
add("memory", "delete_observations", "Delete specific observations from entities in the knowledge graph", [P("deletions"), P("entityName", "The name of the entity containing the observations"), P("observations", "An array of observations to delete")], "Delete Observations", S)
add("memory", "delete_relations", "Delete multiple relations from the knowledge graph", [P("relations", "An array of relations to delete")] + RELATION, "Delete Relations", S)
add("memory", "read_graph", "Read the entire knowledge graph", [], "Read Graph", S)
add("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query", [P("query", "The search query to match against entity names, types, and observation content")], "Search Nodes", S)
add("memory", "open_nodes", "Open specific nodes in the knowledge graph by their names", [P("names", "An array of entity names to retrieve")], "Open Nodes", S)

S = "src/puppeteer/index.ts@1f2e8ab2"
add("puppeteer", "puppeteer_navigate", "Navigate to a URL", [P("url", "URL to navigate to"), P("launchOptions", "PuppeteerJS LaunchOptions. Default null. If changed and not null, browser restarts. Example: { headless: true, args: ['--no-sandbox'] }"), P("allowDangerous", "Allow dangerous LaunchOptions that reduce security. When false, dangerous args like --no-sandbox will throw errors. Default false.")], source=S)
add("puppeteer", "puppeteer_screenshot", "Take a screenshot of the current page or a specific element", [P("name", "Name for the screenshot"), P("selector", "CSS selector for element to screenshot"), P("width", "Width in pixels (default: 800)"), P("height", "Height in pixels (default: 600)")], source=S)
add("puppeteer", "puppeteer_click", "Click an element on the page", [P("selector", "CSS selector for element to click")], source=S)
add("puppeteer", "puppeteer_click_position", "Click at specific x,y coordinates on the page", [P("x", "X coordinate in pixels"), P("y", "Y coordinate in pixels"), P("button", "Mouse button to use (default: left). Options: left, right, middle"), P("clickCount", "Number of clicks (default: 1)")], source=S)
add("puppeteer", "puppeteer_fill", "Fill out an input field", [P("selector", "CSS selector for input field"), P("value", "Value to fill")], source=S)
add("puppeteer", "puppeteer_select", "Select an element on the page with Select tag", [P("selector", "CSS selector for element to select"), P("value", "Value to select")], source=S)
add("puppeteer", "puppeteer_hover", "Hover an element on the page", [P("selector", "CSS selector for element to hover")], source=S)
add("puppeteer", "puppeteer_evaluate", "Execute JavaScript in the browser console", [P("script", "JavaScript code to execute")], source=S)
add("puppeteer", "puppeteer_scroll", "Scroll the page vertically or to a specific element", [P("selector", "CSS selector for element to scroll to"), P("x", "Horizontal scroll position in pixels"), P("y", "Vertical scroll position in pixels"), P("behavior", "Scroll behavior: 'auto' (instant) or 'smooth' (default: 'auto')")], source=S)

# GitHub: names and descriptions from src/github/index.ts; parameter names from the same file's
# call handlers (the zod schemas live in operations/*.ts; their descriptions are not transcribed).
S = "src/github/index.ts@01399016"
R = [P("owner"), P("repo")]
add("github", "create_or_update_file", "Create or update a single file in a GitHub repository", R + [P("path"), P("content"), P("message"), P("branch"), P("sha")], source=S)
add("github", "search_repositories", "Search for GitHub repositories", [P("query"), P("page"), P("perPage")], source=S)
add("github", "create_repository", "Create a new GitHub repository in your account", [P("name"), P("description"), P("private"), P("autoInit")], source=S)
add("github", "get_file_contents", "Get the contents of a file or directory from a GitHub repository", R + [P("path"), P("branch")], source=S)
add("github", "push_files", "Push multiple files to a GitHub repository in a single commit", R + [P("branch"), P("files"), P("message")], source=S)
add("github", "create_issue", "Create a new issue in a GitHub repository", R + [P("title"), P("body"), P("assignees"), P("labels"), P("milestone")], source=S)
add("github", "create_pull_request", "Create a new pull request in a GitHub repository", R + [P("title"), P("body"), P("head"), P("base"), P("draft")], source=S)
add("github", "fork_repository", "Fork a GitHub repository to your account or specified organization", R + [P("organization")], source=S)
add("github", "create_branch", "Create a new branch in a GitHub repository", R + [P("branch"), P("from_branch")], source=S)
add("github", "list_commits", "Get list of commits of a branch in a GitHub repository", R + [P("page"), P("perPage"), P("sha")], source=S)
add("github", "list_issues", "List issues in a GitHub repository with filtering options", R + [P("state"), P("labels"), P("sort"), P("direction"), P("since"), P("page"), P("per_page")], source=S)
add("github", "update_issue", "Update an existing issue in a GitHub repository", R + [P("issue_number"), P("title"), P("body"), P("state"), P("labels"), P("assignees"), P("milestone")], source=S)
add("github", "add_issue_comment", "Add a comment to an existing issue", R + [P("issue_number"), P("body")], source=S)
add("github", "search_code", "Search for code across GitHub repositories", [P("q"), P("order"), P("page"), P("per_page")], source=S)
add("github", "search_issues", "Search for issues and pull requests across GitHub repositories", [P("q"), P("sort"), P("order"), P("page"), P("per_page")], source=S)
add("github", "search_users", "Search for users on GitHub", [P("q"), P("sort"), P("order"), P("page"), P("per_page")], source=S)
add("github", "get_issue", "Get details of a specific issue in a GitHub repository.", R + [P("issue_number")], source=S)
add("github", "get_pull_request", "Get details of a specific pull request", R + [P("pull_number")], source=S)
add("github", "list_pull_requests", "List and filter repository pull requests", R + [P("state"), P("head"), P("base"), P("sort"), P("direction"), P("per_page"), P("page")], source=S)
add("github", "create_pull_request_review", "Create a review on a pull request", R + [P("pull_number"), P("commit_id"), P("body"), P("event"), P("comments")], source=S)
add("github", "merge_pull_request", "Merge a pull request", R + [P("pull_number"), P("commit_title"), P("commit_message"), P("merge_method")], source=S)
add("github", "get_pull_request_files", "Get the list of files changed in a pull request", R + [P("pull_number")], source=S)
add("github", "get_pull_request_status", "Get the combined status of all status checks for a pull request", R + [P("pull_number")], source=S)
add("github", "update_pull_request_branch", "Update a pull request branch with the latest changes from the base branch", R + [P("pull_number"), P("expected_head_sha")], source=S)
add("github", "get_pull_request_comments", "Get the review comments on a pull request", R + [P("pull_number")], source=S)
add("github", "get_pull_request_reviews", "Get the reviews on a pull request", R + [P("pull_number")], source=S)
add("github", "add_sub_issues", "Add existing work items as sub-issues to an issue.", R + [P("issue_number"), P("sub_issue_ids")], source=S)

S = "src/git/tests/snapshots/list_tools.json@0e729d39"
RP = P("repo_path")
TS = "Start timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')"
add("git", "git_status", "Shows the working tree status", [RP], source=S)
add("git", "git_diff_unstaged", "Shows changes in the working directory that are not yet staged", [RP, P("context_lines")], source=S)
add("git", "git_diff_staged", "Shows changes that are staged for commit", [RP, P("context_lines")], source=S)
add("git", "git_diff", "Shows differences between branches or commits", [RP, P("target"), P("context_lines")], source=S)
add("git", "git_commit", "Records changes to the repository", [RP, P("message")], source=S)
add("git", "git_add", "Adds file contents to the staging area", [RP, P("files")], source=S)
add("git", "git_reset", "Unstages all staged changes", [RP], source=S)
add("git", "git_log", "Shows the commit logs", [RP, P("max_count"), P("start_timestamp", TS), P("end_timestamp", TS.replace("Start", "End"))], source=S)
add("git", "git_create_branch", "Creates a new branch from an optional base branch", [RP, P("branch_name"), P("base_branch")], source=S)
add("git", "git_checkout", "Switches branches", [RP, P("branch_name")], source=S)
add("git", "git_show", "Shows the contents of a commit", [RP, P("revision")], source=S)
add("git", "git_branch", "List Git branches", [P("repo_path", "The path to the Git repository."), P("branch_type", "Whether to list local branches ('local'), remote branches ('remote') or all branches('all')."), P("contains", "The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified"), P("not_contains", "The commit sha that branch should NOT contain. Do not pass anything to this param if no commit sha is specified")], source=S)

with open("tools.jsonl", "w") as f:
    for t in tools:
        f.write(json.dumps(t) + "\n")
print(len(tools))
