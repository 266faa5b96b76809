"""Claude Code's hook wire format: events in, answers out, sub-hook outputs read as CC does.

The vocabulary every host's parser shares (bridge.wire.event for CC's own envelope,
bridge.wire.hosts for the other agents') lives here, below both, so neither imports the other
back."""

from bridge import CcbridgeError

# The agents ccbridge speaks to (`ccbridge run --host NAME`); each but claude-code is a module of
# bridge.wire.hosts. Here, not there: `ccbridge run` checks the name without importing the hosts.
HOSTS = (
    *("claude-code", "cline", "codex", "copilot", "cursor", "gemini", "grok", "opencode", "qwen"),
)

# Every hook event Claude Code knows (read from the 2.1.335 binary: 2.1.332's and Interrupt); a
# config naming another event is refused with the closest of these.
CC_EVENTS = frozenset(
    {
        *("PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification"),
        *("UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop"),
        *("StopFailure", "Interrupt", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact"),
        *("PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup"),
        *("TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult"),
        *("ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged"),
        *("FileChanged", "DirectoryAdded", "MessageDisplay", "PreSkillShellCommand"),
    }
)

# Tools that only read, look up or talk, as Claude Code names them and as the other agents'
# envelopes do (bridge.wire.hosts maps most of theirs to these). Self-protection judges every
# other tool, an MCP server's or one a newer client adds included, by the paths it names.
READ_ONLY_TOOLS = frozenset(
    {
        *("Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch", "Task", "Agent"),
        *("TodoWrite", "TodoRead", "BashOutput", "KillShell", "KillBash", "ExitPlanMode"),
        *("AskUserQuestion", "Skill", "SlashCommand", "ListMcpResourcesTool"),
        *("ReadMcpResourceTool", "SemSearch", "ReadLints", "Fetch", "ReadTodos", "UpdateTodos"),
        *("CreatePlan",),
    }
)


class EventError(CcbridgeError):
    """Stdin did not hold a hook event we can judge; the message says why. `host`: the agent
    whose envelope it was, when that much was told (its refusal is answered in its dialect)."""

    host: str | None = None
    event: str | None = None  # the event, where its refusal has a form of its own
