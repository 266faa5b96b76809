"""What ccbridge prints back to Claude Code. It never emits `allow`, `updatedInput` or `defer`."""

from bridge.pipeline import Ask, Deny, PreDecision
from bridge.pipeline.valueclass import Record
from bridge.wire import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Sequence
    from typing import Any

# Exit 2 blocks on every CC version; since 2.1.197 CC also reads the JSON and prefers its reason.
DENY_EXIT = 2


class Answer(Record, frozen=True, slots=True):
    payload: "dict[str, Any]"
    exit_code: int = 0
    stderr: str = ""
    text: str = ""  # plain stdout, where CC reads text (PreCompact's compaction instructions)

    @property
    def stdout(self) -> bytes:
        if self.text:
            return self.text.encode() + b"\n"
        return jsonio.dumps(self.payload) + b"\n" if self.payload else b""

    @property
    def decision(self) -> str:
        """deny / ask / block / none: the one word the audit and the tests look at."""
        specific = self.payload.get("hookSpecificOutput", {})
        permission = specific.get("decision")
        if isinstance(permission, dict):  # PermissionRequest
            return str(permission.get("behavior") or "none")
        return str(specific.get("permissionDecision") or self.payload.get("decision") or "none")

    @property
    def reason(self) -> str:
        specific = self.payload.get("hookSpecificOutput", {})
        permission = specific.get("decision")
        if isinstance(permission, dict):
            return str(permission.get("message") or "")
        return str(specific.get("permissionDecisionReason") or self.payload.get("reason") or "")


def _common(system_messages: "Sequence[str]", stop_reason: "str | None") -> "dict[str, Any]":
    payload: dict[str, Any] = {}
    if system_messages:
        payload["systemMessage"] = "\n\n".join(system_messages)
    if stop_reason:
        payload["continue"] = False
        payload["stopReason"] = stop_reason
    return payload


def pre_tool_use(
    decision: "PreDecision",
    contexts: "Sequence[str]" = (),
    system_messages: "Sequence[str]" = (),
    stop_reason: "str | None" = None,
) -> "Answer":
    payload = _common(system_messages, stop_reason)
    specific: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if isinstance(decision, Deny | Ask):
        specific["permissionDecision"] = "deny" if isinstance(decision, Deny) else "ask"
        specific["permissionDecisionReason"] = decision.reason
    if contexts:
        specific["additionalContext"] = "\n\n".join(contexts)
    if len(specific) > 1:
        payload["hookSpecificOutput"] = specific
    if isinstance(decision, Deny):
        return Answer(payload, DENY_EXIT, decision.reason)
    return Answer(payload)


def deny(reason: str) -> "Answer":
    return pre_tool_use(Deny(reason))


# Claude Code cannot ask anybody while a skill loads: an `ask` keeps the command from running.
CANNOT_WAIT = "ccbridge asked for approval, which a skill's inline command cannot wait for"


def skill_shell(
    decision: "PreDecision",
    system_messages: "Sequence[str]" = (),
    stop_reason: "str | None" = None,
) -> "Answer":
    """PreSkillShellCommand: a skill's inline shell command as it loads. A deny or an ask is
    Claude Code's `decision: block` (the model reads `[not run: blocked by hook: reason]` in
    the skill's text), with exit 2 and the reason on stderr, which also blocks; else nothing."""
    payload = _common(system_messages, stop_reason)
    if not isinstance(decision, Deny | Ask):
        return Answer(payload)
    reason = decision.reason if isinstance(decision, Deny) else f"{decision.reason}; {CANNOT_WAIT}"
    payload.update(decision="block", reason=reason)
    return Answer(payload, DENY_EXIT, reason)


def post_tool_use(
    event_name: str,
    block_reason: "str | None",
    contexts: "Sequence[str]" = (),
    system_messages: "Sequence[str]" = (),
    stop_reason: "str | None" = None,
) -> "Answer":
    """PostToolUse / PostToolUseFailure: the tool already ran, so a block is feedback."""
    payload = _common(system_messages, stop_reason)
    if block_reason is not None:
        payload["decision"] = "block"
        payload["reason"] = block_reason
    _add_context(payload, event_name, contexts)
    return Answer(payload)


def _add_context(payload: "dict[str, Any]", event_name: str, contexts: "Sequence[str]") -> None:
    """The hooks' additionalContext, joined, where CC reads it for the event (if any)."""
    if contexts:
        payload["hookSpecificOutput"] = {
            "hookEventName": event_name,
            "additionalContext": "\n\n".join(contexts),
        }


# Events whose hooks' additionalContext CC passes to the model (or the subagent).
CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart", "SubagentStart"})


def permission_request(
    deny_reason: "str | None",
    system_messages: "Sequence[str]" = (),
    stop_reason: "str | None" = None,
) -> "Answer":
    """PermissionRequest: a deny, or nothing (CC shows its permission dialog). Never `allow`."""
    payload = _common(system_messages, stop_reason)
    if deny_reason is not None:
        payload["hookSpecificOutput"] = {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": deny_reason},
        }
    return Answer(payload)


def lifecycle(
    event_name: str,
    block_reason: "str | None",
    contexts: "Sequence[str]" = (),
    system_messages: "Sequence[str]" = (),
    stop_reason: "str | None" = None,
) -> "Answer":
    """The other events ccbridge runs: `decision: block` where the event can be blocked
    (UserPromptSubmit, Stop, SubagentStop; PreCompact, which CC only blocks on exit 2), context
    where CC takes it."""
    payload = _common(system_messages, stop_reason)
    if block_reason is not None:
        payload.update(decision="block", reason=block_reason)
        if event_name == "PreCompact":
            return Answer(payload, DENY_EXIT, block_reason)
        return Answer(payload)
    if contexts and event_name == "PreCompact":
        return Answer(payload, text="\n\n".join(contexts))
    if event_name in CONTEXT_EVENTS:
        _add_context(payload, event_name, contexts)
    return Answer(payload)


def merged(first: "Answer", second: "Answer") -> "Answer":
    """Two answers to one event (the sub-hooks' and the goal module's): the second's decision
    wins where both set one; system messages and contexts are joined."""
    payload = {**first.payload, **second.payload}
    messages = [
        answer.payload["systemMessage"]
        for answer in (first, second)
        if answer.payload.get("systemMessage")
    ]
    if messages:
        payload["systemMessage"] = "\n\n".join(messages)
    contexts = [
        answer.payload["hookSpecificOutput"]["additionalContext"]
        for answer in (first, second)
        if answer.payload.get("hookSpecificOutput", {}).get("additionalContext")
    ]
    if contexts:
        payload["hookSpecificOutput"] = {
            **payload["hookSpecificOutput"],
            "additionalContext": "\n\n".join(contexts),
        }
    return Answer(payload, max(first.exit_code, second.exit_code), second.stderr or first.stderr)
