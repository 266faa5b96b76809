"""The native policy API: plain functions, run in-process, failing closed like sub-hooks.

    guard(execution) -> str | Deny | Ask | None         deny, ask the user, or abstain
    pre_execute(execution, next) -> PreDecision         Allow(), Deny(why), Ask(why) or next()
    post_execute(execution, result, next) -> PostDecision
    observer(execution, result) -> None                 read-only; failures are contained

Reference them from the config as `module:function` or `path/to/file.py:function`.

A guard denies with a reason (a plain string, or `Deny(reason)`), or asks with `Ask(reason)`
when what decides is only known when the call runs (a path held in a variable, code read from a
pipe): Claude Code's permission prompt shows the reason, and with `approval: none` the question
is a denial. A guard can never allow. Every guard runs until one denies, so a question never
hides a denial; the questions of several guards become one prompt.
A ten-line guard:

    from bridge.policies.api import Execution

    def no_force_push(execution: Execution) -> str | None:
        if execution.tool_name != "Bash":
            return None
        command = str(execution.input.get("command", ""))
        if "git push" in command and "--force" in command.split():
            return "force-pushing is not allowed here"
        return None
"""

from bridge.pipeline import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    Execution,
    Guard,
    Observer,
    PostDecision,
    PostListener,
    PreDecision,
    PreListener,
    ReplaceContent,
    ReplaceValue,
    ToolResult,
)

__all__ = [
    "Accept",
    "Allow",
    "Ask",
    "Block",
    "Deny",
    "Execution",
    "Guard",
    "Observer",
    "PostDecision",
    "PostListener",
    "PreDecision",
    "PreListener",
    "ReplaceContent",
    "ReplaceValue",
    "ToolResult",
]
