"""An independent oracle for the fold, written from Claude Code's hooks protocol
(docs/spec/cc-hooks-protocol.md, sections 3 and 4) and the README's "What CC gets back"
table, never by calling ccbridge's code.

CASES says, for every golden case under fixtures/, what each sub-hook that runs means under the
protocol; `expected` folds those meanings into what Claude Code must get back. The golden files
are recorded from the code (a regression test); this table is what they are checked against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# What one sub-hook's run means (protocol, section 3):
#   deny     permissionDecision deny, legacy `decision: block`, or exit 2 (stderr is the reason)
#   ask      permissionDecision ask
#   defer    permissionDecision defer (README: a request to decide elsewhere is a question)
#   allow    permissionDecision allow or legacy `approve`; with or without updatedInput
#   none     no decision: exit 0 with no output, `{}`, plain text or bytes that are not JSON,
#            only additionalContext / systemMessage / universal fields
#   stop     `continue: false`: stops Claude whatever the decisions
#   block    PostToolUse `decision: block`
#   failure  any other exit code, a timeout, a missing program, output over the cap, or JSON
#            that breaks the protocol (bad value, wrong type, another event's output)
#   ignored  a failure of a hook with `onFailure: ignore`
Meaning = Literal["deny", "ask", "defer", "allow", "none", "stop", "block", "failure", "ignored"]
# Nothing reached a sub-hook: stdin is no hook event, or the config cannot be loaded.
Broken = Literal["bad-input", "bad-config"]
Answer = Literal["deny", "ask", "block", "none"]


@dataclass(frozen=True)
class Case:
    event: str
    ran: tuple[tuple[str, Meaning], ...] = ()  # (hook name, meaning) of each hook that matched
    broken: Broken | None = None
    approval: Literal["prompt", "none"] = "prompt"
    stop_hook_active: bool = False  # Stop/SubagentStop: Claude already continues for a hook


def pre(*ran: tuple[str, Meaning], approval: Literal["prompt", "none"] = "prompt") -> Case:
    return Case("PreToolUse", ran, approval=approval)


def post(*ran: tuple[str, Meaning], event: str = "PostToolUse") -> Case:
    return Case(event, ran)


CASES: dict[str, Case] = {
    "notification-told": Case("Notification", (("gate", "deny"),)),
    "permission-request-allow-downgraded": Case("PermissionRequest", (("yes-man", "allow"),)),
    "permission-request-crash": Case("PermissionRequest", (("crasher", "failure"),)),
    "permission-request-deny": Case("PermissionRequest", (("policy", "deny"),)),
    "pre-compact-block": Case("PreCompact", (("gate", "deny"),)),
    "session-start-context": Case("SessionStart", (("noter", "none"),)),
    "session-start-crash-told": Case("SessionStart", (("crasher", "failure"),)),
    "stop-block": Case("Stop", (("tests", "block"),)),
    "stop-crash-active-told": Case("Stop", (("crasher", "failure"),), stop_hook_active=True),
    "stop-crash-blocks-once": Case("Stop", (("crasher", "failure"),)),
    "subagent-stop-matcher": Case("SubagentStop", (("gate", "deny"),)),
    "user-prompt-block": Case("UserPromptSubmit", (("gate", "deny"),)),
    "user-prompt-crash": Case("UserPromptSubmit", (("crasher", "failure"),)),
    "user-prompt-plain-context": Case("UserPromptSubmit", (("noter", "none"),)),
    "event-not-a-gate": Case("Notification"),  # its config has PreToolUse hooks only
    "permission-request-no-decision": Case("PermissionRequest"),  # the same
    "post-block-order-independent": post(("zz", "deny"), ("aa", "block")),
    "post-block-with-context": post(("checker", "block")),
    "post-config-error": Case("PostToolUse", broken="bad-config"),
    "post-context-only": post(("noter", "none")),
    "post-crash": post(("crasher", "failure")),
    "post-crash-ignored": post(("crasher", "ignored")),
    "post-exit2": post(("checker", "deny")),
    "post-failure-event": post(("noter", "none"), event="PostToolUseFailure"),
    "post-malformed": post(("garbler", "failure")),
    "post-two-contexts": post(("b", "none"), ("a", "none")),
    "post-updated-output-recorded": post(("forger", "none")),  # updatedToolOutput: recorded only
    "pre-additional-context": pre(("noter", "none")),
    "pre-allow-downgraded": pre(("yes-man", "allow")),
    "pre-allow-then-deny": pre(("yes-man", "allow"), ("policy", "deny")),
    "pre-allow-updated-input": pre(("rewriter", "allow")),
    "pre-ask": pre(("review", "ask")),
    "pre-ask-no-approval-channel": pre(("review", "ask"), approval="none"),
    "pre-ask-with-rewrite": pre(("rewriter", "allow"), ("review", "ask")),
    "pre-bad-decision-value": pre(("vague", "failure")),
    "pre-bad-reason-type": pre(("typo", "failure")),
    "pre-binary-output": pre(("bytes", "none")),  # not JSON: its first byte is not `{`
    "pre-config-bad-regex": Case("PreToolUse", broken="bad-config"),
    "pre-config-bad-yaml": Case("PreToolUse", broken="bad-config"),
    "pre-config-http-hook": Case("PreToolUse", broken="bad-config"),
    "pre-config-unknown-key": Case("PreToolUse", broken="bad-config"),
    "pre-contexts-config-order": pre(("first", "none"), ("second", "none"), ("policy", "deny")),
    "pre-continue-false": pre(("stopper", "stop")),
    "pre-crash-exit1": pre(("crasher", "failure")),
    "pre-crash-ignored": pre(("optional", "ignored")),
    "pre-crash-ignored-by-default": pre(("optional", "ignored")),  # defaults.on_failure: ignore
    "pre-defer-as-ask": pre(("later", "defer")),
    "pre-defer-ask-allow": pre(("yes-man", "allow"), ("later", "defer"), ("review", "ask")),
    "pre-deny": pre(("policy", "deny")),
    "pre-deny-beats-ask": pre(("review", "ask"), ("policy", "deny")),
    "pre-deny-then-allow": pre(("policy", "deny"), ("yes-man", "allow")),
    "pre-duplicate-handler-once": pre(("policy", "deny")),  # identical handlers run once
    "pre-empty-object": pre(("empty", "none")),
    "pre-exec-form": pre(("exec", "deny")),
    "pre-exec-form-missing": pre(("ghost-exec", "failure")),
    "pre-exit2-json-reason": pre(("blocker", "deny")),
    "pre-exit2-stderr": pre(("blocker", "deny")),
    "pre-exit3": pre(("odd", "failure")),
    "pre-failure-beats-ask": pre(("review", "ask"), ("crasher", "failure")),
    "pre-if-rule-hit": pre(("git-only", "deny")),
    "pre-if-rule-miss": pre(),  # its `if` rule does not match: it never runs
    "pre-legacy-approve": pre(("old", "allow")),
    "pre-legacy-block": pre(("old", "deny")),
    "pre-long-context-capped": pre(("long", "none")),
    "pre-malformed-json": pre(("garbler", "failure")),
    "pre-matcher-case-sensitive": pre(),
    "pre-matcher-list": pre(("policy", "deny")),
    "pre-matcher-miss": pre(),
    "pre-matcher-omitted": pre(("policy", "deny")),
    "pre-matcher-regex": pre(("policy", "deny")),
    "pre-matcher-star": pre(("policy", "deny")),
    "pre-missing-command": pre(("ghost", "failure")),
    "pre-no-hooks": pre(),
    "pre-output-overflow": pre(("flood", "failure")),
    "pre-plain-text": pre(("chatty", "none")),
    "pre-settings-json-config": pre(("policy", "deny")),
    "pre-silent": pre(("quiet", "none")),
    "pre-stdin-passed": pre(("reader", "deny")),  # it denies only when it reads the event
    "pre-system-message": pre(("announcer", "none")),
    "pre-timeout": pre(("sleeper", "failure")),
    "pre-two-asks": pre(("zeta", "ask"), ("alpha", "ask")),
    "pre-two-denies-order-a": pre(("alpha", "deny"), ("beta", "deny")),
    "pre-two-denies-order-b": pre(("beta", "deny"), ("alpha", "deny")),
    "pre-two-rewriters": pre(("one", "allow"), ("two", "allow")),
    "pre-universal-fields-tolerated": pre(("quiet", "none")),
    "pre-unknown-fields-tolerated": pre(("policy", "deny")),
    "pre-wrong-event-json": pre(("confused", "failure")),
    "stdin-empty": Case("?", broken="bad-input"),
    "stdin-malformed": Case("?", broken="bad-input"),
    "stdin-missing-tool-input": Case("PreToolUse", broken="bad-input"),
    "stdin-not-object": Case("?", broken="bad-input"),
    "stdin-wrong-type": Case("PreToolUse", broken="bad-input"),
}

# Protocol, section 4: deny > defer > ask > allow, exit 2 counts as deny, no output is no
# opinion. README: a failure without opt-out is a deny, `continue: false` cannot be passed on
# as a decision so it denies, defer is a question, allow is no opinion, an ignored failure too.
_PRE_RANK: dict[Meaning, Answer] = {
    "deny": "deny",
    "failure": "deny",
    "stop": "deny",
    "block": "deny",
    "ask": "ask",
    "defer": "ask",
    "allow": "none",
    "none": "none",
    "ignored": "none",
}
# README: PostToolUse, a block, an exit 2 or a failure is `decision: block` (the tool already
# ran, so nothing can be denied).
_POST_BLOCKS = frozenset({"deny", "failure", "block", "stop"})
POST_EVENTS = ("PostToolUse", "PostToolUseFailure")


@dataclass(frozen=True)
class Expected:
    answer: Answer
    exit_code: int
    names: frozenset[str]  # hooks whose reasons the answer must carry, as "[name] ..."


def expected(case: Case) -> Expected:
    """What Claude Code must get back (README, "What CC gets back")."""
    if case.broken is not None:  # nothing was judged: the gate fails closed
        if case.event in POST_EVENTS:
            return Expected("block", 0, frozenset())
        return Expected("deny", 2, frozenset())
    if case.event in POST_EVENTS:
        blockers = frozenset(name for name, meaning in case.ran if meaning in _POST_BLOCKS)
        return Expected("block" if blockers else "none", 0, blockers)
    if case.event in BLOCKABLE:
        return _blockable(case)
    if case.event != "PreToolUse":  # nothing to stop: ccbridge decides nothing there
        return Expected("none", 0, frozenset())
    ranks = {name: _PRE_RANK[meaning] for name, meaning in case.ran}
    answer: Answer = next((a for a in ("deny", "ask") if a in ranks.values()), "none")
    names = frozenset(name for name, rank in ranks.items() if rank == answer != "none")
    if answer == "ask" and case.approval == "none":  # no one to ask: a question is a deny
        return Expected("deny", 2, names)
    return Expected(answer, 2 if answer == "deny" else 0, names)


# README, "Events": where a hook can stop something, a deny, a block, an exit 2 or a failure
# stops it (PermissionRequest: a deny; PreCompact: exit 2); a failure alone does not stop a
# Stop again while Claude already continues for a hook (no endless loop); `allow` is nothing.
BLOCKABLE = ("PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact")


def _blockable(case: Case) -> Expected:
    stoppers = frozenset(name for name, meaning in case.ran if meaning in _POST_BLOCKS)
    failures_only = all(meaning == "failure" for name, meaning in case.ran if name in stoppers)
    if not stoppers or (case.stop_hook_active and failures_only):
        return Expected("none", 0, frozenset())
    if case.event == "PermissionRequest":
        return Expected("deny", 0, stoppers)
    return Expected("block", 2 if case.event == "PreCompact" else 0, stoppers)
