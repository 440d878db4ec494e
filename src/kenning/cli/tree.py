"""Where every command lives: the groups a person finds them in, each command's one-line
summary, and the module that defines it (imported only when the command runs).

To add a command, define it in a ``kenning.cli.<area>`` module and add one :class:`Entry`
here. ``tests/cli/test_cli_tree.py`` checks that every summary matches its command's own help,
that every command has an ``Example:``, and that every moved name still works.
"""

from __future__ import annotations

from kenning.cli.lazy import Entry, LazyGroup

# Sections of `kenning --help`, by what a person is doing.
MEMORY, SESSIONS, GRAPH, WORK, DATA, TEAM, SETUP = (
    "Memory", "Sessions", "Graph", "Work", "Your data", "Team server", "Setup")  # fmt: skip

MEMORY_GROUP = LazyGroup(
    "memory",
    help="""List, curate and look after memories.

    The everyday three (remember, recall, get) are top-level commands; everything else you do
    to memories is here: read their list and history, curate them (pin, hide, hold, retire,
    protect, bring back), answer Needs review, record decisions, set what a project keeps
    (policy) and what agents get (rules), and check that recall can reach them (health).

    \b
    Example:
      kenning memory list
      kenning memory pin m:7f3a2b1c
    """,
    entries=[
        Entry("list", "kenning.cli.memory:list_cmd", "List the project's memories, oldest first, marking resting and stale ones.", "Read"),
        Entry("history", "kenning.cli.memory:history_cmd", "What a memory replaced, what replaced it, and everything that happened to it.", "Read"),
        Entry("pin", "kenning.cli.memory:pin_cmd", "Pin memories atop the project's index (at most 25).", "Curate"),
        Entry("unpin", "kenning.cli.memory:unpin_cmd", "Unpin memories.", "Curate"),
        Entry("hide", "kenning.cli.memory:hide_cmd", "Hide memories from every session (they stay stored).", "Curate"),
        Entry("give", "kenning.cli.memory:give_cmd", "Give hidden memories to sessions again.", "Curate"),
        Entry("hold", "kenning.cli.memory:hold_cmd", "Hold memories back from every path until released.", "Curate"),
        Entry("release", "kenning.cli.memory:release_cmd", "Release held memories (e.g. a widget's).", "Curate"),
        Entry("protect", "kenning.cli.memory:protect_cmd", "Protect memories: retire-session and tidy never take them.", "Curate"),
        Entry("retire", "kenning.cli.memory:retire_cmd", "Retire memories (they stay stored; bring-back restores them).", "Curate"),
        Entry("bring-back", "kenning.cli.memory:bring_back_cmd", "Bring retired or superseded memories back.", "Curate"),
        Entry("retire-session", "kenning.cli.memory:retire_session_cmd", "Retire everything one session wrote, except pinned and protected memories.", "Curate"),
        Entry("review", "kenning.cli.curate:review", "Needs review: contradictions of firmer memories and proposed tidies.", "Review and decide"),
        Entry("decision", "kenning.cli.curate:decision", "Decisions with their reasoning and outcome.", "Review and decide"),
        Entry("policy", "kenning.cli.curate:policy", "What this project keeps; each setting says where it comes from.", "What is kept and given out"),
        Entry("rules", "kenning.cli.work:rules_group", "Which memories your agents get.", "What is kept and given out"),
        Entry("place", "kenning.cli.placements:place_cmd", "Decide where a memory goes: always give it here, not relevant here, or never for agent runs.", "What is kept and given out"),
        Entry("placements", "kenning.cli.placements:placements_cmd", "List where you decided a memory goes, each with the command that undoes it.", "What is kept and given out"),
        Entry("health", "kenning.cli.git:health_cmd", "Are memories reachable? Reports, and with --repair fixes, what recall cannot reach.", "What is kept and given out"),
    ],
)

SESSIONS_GROUP = LazyGroup(
    "sessions",
    help="""Captured agent sessions: capture them, search them, pick up where they stopped.

    kenning reads the transcripts Claude Code, Codex, Gemini CLI and OpenCode already write,
    redacts secrets and keeps the turns. A SESSION argument is a full id (claude:9f1c2a7e-…),
    the id without its tool prefix, the first 8 or more characters of it, or `last`.

    \b
    Example:
      kenning sessions sync
      kenning sessions search "staging database settings"
      kenning sessions show last
    """,
    entries=[
        Entry("sync", "kenning.cli.capture:sync_cmd", "Capture new turns of every agent transcript (Claude Code, Codex, Gemini CLI, OpenCode).", "Capture"),
        Entry("watch", "kenning.cli.capture:watch_cmd", "Keep capturing as transcripts grow. Ctrl-C stops.", "Capture"),
        Entry("search", "kenning.cli.capture:search_cmd", "Search captured sessions.", "Read"),
        Entry("show", "kenning.cli.capture:show_cmd", "Show a captured session (redacted), turn by turn.", "Read"),
        Entry("context", "kenning.cli.capture:context_cmd", "Show the turns around a search hit.", "Read"),
        Entry("resume", "kenning.cli.graph:resume", "Where the last work in this project and branch stands (or SESSION's).", "Pick up"),
        Entry("wake-up", "kenning.cli.graph:wake_up", "What stays true here: identity, decisions, top past-session lines, current facts.", "Pick up"),
        Entry("escalate", "kenning.cli.graph:escalate", "Turn a captured session's decisions, your corrections and its outcome into facts.", "Pick up"),
    ],
)

GRAPH_GROUP = LazyGroup(
    "graph",
    help="""The knowledge graph, an agent's diary and named values per project.

    Facts are subject -> predicate -> object, each valid from a time; `--as-of` reads what
    held then.

    \b
    Example:
      kenning graph add shop uses postgres
      kenning graph query shop --as-of 2026-03-01
    """,
    entries=[
        Entry("add", "kenning.cli.graph:kg_add", "Add a fact.", "Facts"),
        Entry("query", "kenning.cli.graph:kg_query", "Facts about ENTITY, newest first (ended ones too, unless --as-of).", "Facts"),
        Entry("timeline", "kenning.cli.graph:kg_timeline", "Every fact about ENTITY, oldest first, with when each held.", "Facts"),
        Entry("end", "kenning.cli.graph:kg_end", "End a wrong or outdated fact (it stays in the timeline).", "Facts"),
        Entry("extract", "kenning.cli.graph:kg_extract", "Find facts in captured sessions not looked at yet, and give the graph this project's decisions recorded by other paths.", "Facts"),
        Entry("diary", "kenning.cli.graph:diary", "An agent's dated diary entries for this project.", "Notes"),
        Entry("value", "kenning.cli.graph:value", "Small named values per project (deploy target, staging URL, ...).", "Notes"),
    ],
)

WORK_GROUP = LazyGroup(
    "work",
    help="""Where work stands: goal, open items, progress, handoffs, tasks, git.

    The branch's goal, open items and progress reach the brief; notes for other agents reach
    their next prompt; a task starts a session with a card; refresh and outcomes read git.

    \b
    Example:
      kenning work goal "Move invoices to the new rounding rules"
      kenning work open "check the refund path"
    """,
    entries=[
        Entry("goal", "kenning.cli.work:goal_cmd", "Show the branch's goal, or write it down.", "Branch"),
        Entry("open", "kenning.cli.work:open_cmd", "List the branch's open items, add one, or close one with --done N.", "Branch"),
        Entry("progress", "kenning.cli.work:progress_cmd", "Log progress on the branch (trunk keeps the latest 20), or list it.", "Branch"),
        Entry("handoff", "kenning.cli.work:handoff_cmd", "Leave a note for the other agents in this project (each is shown it once).", "Branch"),
        Entry("task", "kenning.cli.work:task_group", "Tasks a session can be started from (it gets a card instead of the brief).", "Tasks"),
        Entry("refresh", "kenning.cli.git:refresh_cmd", "Re-read git: parked work on every branch, every citation of this project, and (where gh is installed and signed in) the pull requests and issues waiting on you, for the brief.", "Git"),
        Entry("outcomes", "kenning.cli.git:outcomes_check", "Look for merges, pull requests and reverts of work that cited a decision.", "Git"),
    ],
)


def _moved(name: str, target: str, now: str) -> Entry:
    return Entry(name, target, "", moved_to=now)


ROOT: list[Entry] = [
    Entry("remember", "kenning.cli.memory:remember_cmd", "Remember one sentence.", MEMORY),
    Entry("recall", "kenning.cli.memory:recall_cmd", "Search memory for a task, in your own words.", MEMORY),
    Entry("get", "kenning.cli.memory:get_cmd", "Show memories by ref, with reason, citation, status, history and evidence.", MEMORY),
    Entry("eval", "kenning.cli.evaluate:eval_cmd", "Measure recall: recall@5 and MRR per question kind.", MEMORY),
    Entry("report", "kenning.cli.report:report_cmd", "Does memory help? The memory report, from the hooks' records and captured transcripts.", MEMORY),
    Entry("index", "kenning.cli.index:index_cmd", "The memory index: up to 12 lines, one memory each with its ref, for an AI that runs without a task (an automation, an in-app agent).", MEMORY),
    Entry("memory", "", "List, curate and look after memories.", MEMORY, group=MEMORY_GROUP),
    Entry("sessions", "", "Captured agent sessions: capture them, search them, pick up where they stopped.", SESSIONS, group=SESSIONS_GROUP),
    Entry("graph", "", "The knowledge graph, an agent's diary and named values per project.", GRAPH, group=GRAPH_GROUP),
    Entry("work", "", "Where work stands: goal, open items, progress, handoffs, tasks, git.", WORK, group=WORK_GROUP),
    Entry("export", "kenning.cli.data:export_cmd", "Write this workspace's memory as JSON Lines.", DATA),
    Entry("import", "kenning.cli.data:import_cmd", "Read a `kenning export` file into this workspace.", DATA),
    Entry("forget", "kenning.cli.data:forget_cmd", "Delete memories, or a captured session, for real.", DATA),
    Entry("sync", "kenning.cli.team:sync_cmd", "Push what changed here to the team server, then pull what others wrote.", TEAM),
    Entry("login", "kenning.cli.team:login_cmd", "Log this machine in to a team server, so `kenning sync` shares its workspaces.", TEAM),
    Entry("logout", "kenning.cli.team:logout_cmd", "Revoke this machine's device token on the server and forget the login here.", TEAM),
    Entry("serve", "kenning.cli.serve:serve_cmd", "Run the team server: sync, accounts and devices, the REST API (docs/server.md).", TEAM),
    Entry("server", "kenning.cli.serve:server_group", "Manage the team server: accounts, workspaces and members, invites, devices.", TEAM),
    Entry("run", "kenning.cli.run:run_cmd", "The main job: open the store, capture this machine's agent transcripts, show status.", SETUP),
    Entry("status", "kenning.cli.run:status_cmd", "What the store holds: memories by kind, marks, reviews waiting, size.", SETUP),
    Entry("install", "kenning.cli.install:install_cmd", "Register kenning's MCP server (and hooks) in agent tools.", SETUP),
    Entry("uninstall", "kenning.cli.install:uninstall_cmd", "Remove what kenning installed, keeping everything else (including your later edits).", SETUP),
    Entry("doctor", "kenning.cli.install:doctor_cmd", "One line per agent tool: registered or not, and whether its kenning command runs.", SETUP),
    Entry("ui", "kenning.cli.ui:ui_cmd", "Open the web app: Memory, Needs review, the Map, Rules, Health, Sessions and the Report.", SETUP),
    Entry("projects", "kenning.cli.scopes:projects", "List known projects and groups; register a group folder.", SETUP),
    Entry("config", "kenning.cli.config:config", "Settings you choose, kept in config.json in the data folder.", SETUP),
    Entry("mcp", "kenning.cli.mcp:mcp_cmd", "Run kenning's MCP server (agent tools start this; see: kenning install).", SETUP),
    Entry("hook", "kenning.cli.hooks:hook_cmd", "Run the hook for TOOL (claude-code, codex, gemini) and EVENT, reading its payload on stdin.", SETUP),
    # Top-level names of the flat CLI (0.1), kept for one release.
    _moved("list", "kenning.cli.memory:list_cmd", "memory list"),
    _moved("history", "kenning.cli.memory:history_cmd", "memory history"),
    _moved("pin", "kenning.cli.memory:pin_cmd", "memory pin"),
    _moved("unpin", "kenning.cli.memory:unpin_cmd", "memory unpin"),
    _moved("hide", "kenning.cli.memory:hide_cmd", "memory hide"),
    _moved("give", "kenning.cli.memory:give_cmd", "memory give"),
    _moved("hold", "kenning.cli.memory:hold_cmd", "memory hold"),
    _moved("release", "kenning.cli.memory:release_cmd", "memory release"),
    _moved("protect", "kenning.cli.memory:protect_cmd", "memory protect"),
    _moved("retire", "kenning.cli.memory:retire_cmd", "memory retire"),
    _moved("bring-back", "kenning.cli.memory:bring_back_cmd", "memory bring-back"),
    _moved("retire-session", "kenning.cli.memory:retire_session_cmd", "memory retire-session"),
    _moved("review", "kenning.cli.curate:review", "memory review"),
    _moved("decision", "kenning.cli.curate:decision", "memory decision"),
    _moved("policy", "kenning.cli.curate:policy", "memory policy"),
    _moved("rules", "kenning.cli.work:rules_group", "memory rules"),
    _moved("health", "kenning.cli.git:health_cmd", "memory health"),
    _moved("watch", "kenning.cli.capture:watch_cmd", "sessions watch"),
    _moved("search", "kenning.cli.capture:search_cmd", "sessions search"),
    _moved("show", "kenning.cli.capture:show_cmd", "sessions show"),
    _moved("context", "kenning.cli.capture:context_cmd", "sessions context"),
    _moved("resume", "kenning.cli.graph:resume", "sessions resume"),
    _moved("wake-up", "kenning.cli.graph:wake_up", "sessions wake-up"),
    _moved("escalate", "kenning.cli.graph:escalate", "sessions escalate"),
    _moved("kg", "kenning.cli.graph:kg", "graph"),
    _moved("diary", "kenning.cli.graph:diary", "graph diary"),
    _moved("value", "kenning.cli.graph:value", "graph value"),
    _moved("goal", "kenning.cli.work:goal_cmd", "work goal"),
    _moved("open", "kenning.cli.work:open_cmd", "work open"),
    _moved("progress", "kenning.cli.work:progress_cmd", "work progress"),
    _moved("handoff", "kenning.cli.work:handoff_cmd", "work handoff"),
    _moved("task", "kenning.cli.work:task_group", "work task"),
    _moved("refresh", "kenning.cli.git:refresh_cmd", "work refresh"),
    _moved("outcomes", "kenning.cli.git:outcomes_group", "work outcomes"),
    _moved("group", "kenning.cli.scopes:group", "projects group"),
]
