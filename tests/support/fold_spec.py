"""An independent oracle for the whole answer, written from Claude Code's hooks protocol
(docs/spec/cc-hooks-protocol.md, sections 3 and 4), the DSH pipeline
(docs/spec/dsh-pipeline.md) and the README's "What CC gets back" and "Events" tables,
never by calling ccbridge's code.

CASES says, for every golden case under fixtures/, what each sub-hook that runs means under the
protocol and what text it gives (read from the case's config and the hook scripts it runs);
`expected` folds those into what Claude Code must get back: the decision, the exit code, the
reason text, the contexts, the system message, `continue`/`stopReason`, and no other key. The
golden files are recorded from the code (a regression test); this is what they, and every run,
are checked against (tests/test_golden.py).

Where only ccbridge can word a text (why a hook failed, why a config cannot be loaded), the
oracle holds what the README promises of it: the hook's name as `[name] `, the file and line,
the cap, and nothing about the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

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
class Hook:
    name: str
    meaning: Meaning
    # The hook's own text for its verdict (permissionDecisionReason, `reason`, exit 2's stderr,
    # PermissionRequest's message, stopReason); None where ccbridge words it (a failure).
    says: str | None = None
    context: str | None = None  # additionalContext
    plain: str | None = None  # exit 0 stdout that is not JSON (context where the event takes it)
    message: str | None = None  # systemMessage
    # A failure: what its reason must name besides the hook, where the README or
    # docs/guarantees.md promise it ("a deny naming the cap", "timed out after Ns").
    names: tuple[str, ...] = ()


def deny(name: str, says: str, context: str | None = None) -> Hook:
    return Hook(name, "deny", says, context)


def ask(name: str, says: str) -> Hook:
    return Hook(name, "ask", says)


def defer(name: str, says: str) -> Hook:
    return Hook(name, "defer", says)


def allow(name: str) -> Hook:
    return Hook(name, "allow")


def none(
    name: str, context: str | None = None, plain: str | None = None, message: str | None = None
) -> Hook:
    return Hook(name, "none", context=context, plain=plain, message=message)


def stop(name: str, says: str) -> Hook:
    return Hook(name, "stop", says)


def block(name: str, says: str, context: str | None = None) -> Hook:
    return Hook(name, "block", says, context)


def failure(name: str, *names: str) -> Hook:
    return Hook(name, "failure", names=names)


def ignored(name: str) -> Hook:
    return Hook(name, "ignored")


@dataclass(frozen=True)
class Case:
    event: str
    ran: tuple[Hook, ...] = ()  # each hook that matched, in config order
    broken: Broken | None = None
    approval: Literal["prompt", "none"] = "prompt"
    stop_hook_active: bool = False  # Stop/SubagentStop: Claude already continues for a hook
    # The agent that called (docs/hosts.md): its answer is in that agent's dialect, and none but
    # Claude Code has a hook prompt ccbridge relies on, so elsewhere a question is a deny.
    host: str = "claude-code"


def pre(*ran: Hook, approval: Literal["prompt", "none"] = "prompt") -> Case:
    return Case("PreToolUse", ran, approval=approval)


def post(*ran: Hook, event: str = "PostToolUse") -> Case:
    return Case(event, ran)


EXIT2 = "blocked by exit code 2"  # fixtures/_hooks/exit2.sh's stderr without an argument
PLAIN = "just some text, not JSON"  # fixtures/_hooks/plain_text.sh
AFTER = "context after the tool"  # fixtures/_hooks/post_block.sh's context
LONG = "c" * 12000  # fixtures/_hooks/long_context.sh


def on(host: str, case: Case) -> Case:
    return Case(case.event, case.ran, case.broken, case.approval, case.stop_hook_active, host)


CASES: dict[str, Case] = {
    "host-codex-ask-denied": on("codex", pre(ask("review", "check this"))),
    "host-cursor-ask-denied": on("cursor", pre(ask("review", "check this"))),
    "host-cursor-before-shell-deny": on("cursor", pre(deny("policy", "no shell today"))),
    "host-cursor-cc-event-shell": on("cursor", pre(deny("policy", "no shell today"))),
    "host-cursor-read-no-decision": on("cursor", pre()),  # the Bash hook does not match Read
    "host-cursor-shell-deny": on("cursor", pre(deny("policy", "no shell today"))),
    "host-cursor-stop-followup": on("cursor", Case("Stop", (block("tests", "legacy block"),))),
    "host-gemini-shell-deny": on("gemini", pre(deny("policy", "no shell today"))),
    "host-grok-ask-denied": on("grok", pre(ask("review", "check this"))),
    "host-grok-crash-denies": on("grok", pre(failure("crasher"))),
    "host-grok-read-no-decision": on("grok", pre()),
    "host-grok-shell-deny": on("grok", pre(deny("policy", "no shell today"))),
    "host-grok-truncated-input": on("grok", Case("PreToolUse", broken="bad-input")),
    "notification-told": Case("Notification", (deny("gate", EXIT2),)),
    "permission-request-allow-downgraded": Case("PermissionRequest", (allow("yes-man"),)),
    "permission-request-crash": Case("PermissionRequest", (failure("crasher"),)),
    "permission-request-deny": Case("PermissionRequest", (deny("policy", "not on this machine"),)),
    "pre-compact-block": Case("PreCompact", (deny("gate", EXIT2),)),
    "session-start-context": Case("SessionStart", (none("noter", plain=PLAIN),)),
    "session-start-crash-told": Case("SessionStart", (failure("crasher"),)),
    "stop-block": Case("Stop", (block("tests", "legacy block"),)),
    "stop-continue-false": Case("Stop", (stop("stopper", "stop everything"),)),
    "session-start-told-after-message": Case(
        "SessionStart", (deny("gate", "no session today"), none("announcer", message="heads up"))
    ),
    "user-prompt-block-drops-context": Case(
        "UserPromptSubmit", (none("noter", context="note"), deny("gate", "not now"))
    ),
    "post-continue-false": post(stop("stopper", "stop everything")),
    "pre-system-messages-config-order": pre(
        none("b", message="second"), none("a", message="first"), deny("policy", "no")
    ),
    "stop-crash-active-told": Case("Stop", (failure("crasher"),), stop_hook_active=True),
    "stop-crash-blocks-once": Case("Stop", (failure("crasher"),)),
    "subagent-stop-matcher": Case("SubagentStop", (deny("gate", EXIT2),)),
    "user-prompt-block": Case("UserPromptSubmit", (deny("gate", EXIT2),)),
    "user-prompt-crash": Case("UserPromptSubmit", (failure("crasher"),)),
    "user-prompt-plain-context": Case("UserPromptSubmit", (none("noter", plain=PLAIN),)),
    "event-not-a-gate": Case("Notification"),  # its config has PreToolUse hooks only
    "permission-request-no-decision": Case("PermissionRequest"),  # the same
    "post-block-order-independent": post(deny("zz", "z problem"), block("aa", "a problem", AFTER)),
    "post-block-with-context": post(block("checker", "output looks wrong", AFTER)),
    "post-config-error": Case("PostToolUse", broken="bad-config"),
    "post-context-only": post(none("noter", context="ran fine")),
    "post-crash": post(failure("crasher")),
    "post-crash-ignored": post(ignored("crasher")),
    "post-exit2": post(deny("checker", "bad output")),
    "post-failure-event": post(
        none("noter", context="the tool failed"), event="PostToolUseFailure"
    ),
    "post-malformed": post(failure("garbler")),
    "post-two-contexts": post(none("b", context="second"), none("a", context="first")),
    "post-updated-output-recorded": post(none("forger")),  # updatedToolOutput: recorded only
    "pre-additional-context": pre(none("noter", context="remember the tests")),
    "pre-allow-downgraded": pre(allow("yes-man")),
    "pre-allow-then-deny": pre(allow("yes-man"), deny("policy", "no")),
    "pre-allow-updated-input": pre(allow("rewriter")),
    "pre-ask": pre(ask("review", "check this")),
    "pre-ask-no-approval-channel": pre(ask("review", "check this"), approval="none"),
    "pre-ask-with-rewrite": pre(allow("rewriter"), ask("review", "check")),
    "pre-bad-decision-value": pre(failure("vague")),
    "pre-bad-reason-type": pre(failure("typo")),
    "pre-binary-output": pre(none("bytes", plain="binary")),  # not JSON: its first byte is not `{`
    "pre-config-bad-regex": Case("PreToolUse", broken="bad-config"),
    "pre-config-bad-yaml": Case("PreToolUse", broken="bad-config"),
    "pre-config-http-hook": Case("PreToolUse", broken="bad-config"),
    "pre-config-unknown-key": Case("PreToolUse", broken="bad-config"),
    "pre-contexts-config-order": pre(
        none("first", context="one"), none("second", context="two"), deny("policy", "no")
    ),
    "pre-continue-false": pre(stop("stopper", "stop everything")),
    "pre-crash-exit1": pre(failure("crasher")),
    "pre-crash-ignored": pre(ignored("optional")),
    "pre-crash-ignored-by-default": pre(ignored("optional")),  # defaults.on_failure: ignore
    "pre-defer-as-ask": pre(defer("later", "decide later")),
    "pre-defer-ask-allow": pre(
        allow("yes-man"), defer("later", "decide later"), ask("review", "check")
    ),
    "pre-deny": pre(deny("policy", "no shell today")),
    "pre-deny-beats-ask": pre(ask("review", "check"), deny("policy", "no")),
    "pre-deny-then-allow": pre(deny("policy", "no"), allow("yes-man")),
    "pre-duplicate-handler-once": pre(deny("policy", "once")),  # identical handlers run once
    "pre-empty-object": pre(none("empty")),
    "pre-exec-form": pre(deny("exec", "from exec form; not a shell")),
    "pre-exec-form-missing": pre(failure("ghost-exec")),
    "pre-exit2-json-reason": pre(deny("blocker", "reason from JSON")),  # the JSON reason wins
    "pre-exit2-stderr": pre(deny("blocker", "not on my watch")),
    "pre-exit3": pre(failure("odd")),
    "pre-failure-beats-ask": pre(ask("review", "check"), failure("crasher")),
    "pre-if-rule-hit": pre(deny("git-only", "no git today")),
    "pre-if-rule-miss": pre(),  # its `if` rule does not match: it never runs
    "pre-legacy-approve": pre(allow("old")),
    "pre-legacy-block": pre(deny("old", "legacy block")),
    "pre-long-context-capped": pre(none("long", context=LONG)),
    "pre-malformed-json": pre(failure("garbler")),
    "pre-matcher-case-sensitive": pre(),
    "pre-matcher-list": pre(deny("policy", "listed")),
    "pre-matcher-miss": pre(),
    "pre-matcher-omitted": pre(deny("policy", "no matcher")),
    "pre-matcher-regex": pre(deny("policy", "regex hit")),
    "pre-matcher-star": pre(deny("policy", "star hit")),
    "pre-missing-command": pre(failure("ghost")),
    "pre-no-hooks": pre(),
    "pre-output-overflow": pre(failure("flood", "100000-byte output cap")),
    "pre-plain-text": pre(none("chatty", plain=PLAIN)),
    "pre-settings-json-config": pre(deny("policy", "from settings.json")),
    "pre-silent": pre(none("quiet")),
    "pre-stdin-passed": pre(deny("reader", "input mentions a secret")),  # only if it read stdin
    "pre-system-message": pre(none("announcer", message="heads up")),
    "pre-timeout": pre(failure("sleeper", "timed out after 1s")),
    "pre-two-asks": pre(ask("zeta", "second opinion"), ask("alpha", "first opinion")),
    "pre-two-denies-order-a": pre(deny("alpha", "reason a"), deny("beta", "reason b")),
    "pre-two-denies-order-b": pre(deny("beta", "reason b"), deny("alpha", "reason a")),
    "pre-two-rewriters": pre(allow("one"), allow("two")),
    "pre-universal-fields-tolerated": pre(none("quiet")),
    "pre-unknown-fields-tolerated": pre(deny("policy", "still judged")),
    "pre-wrong-event-json": pre(failure("confused")),
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
# README, "Events": where a hook can stop something, a deny, a block, an exit 2 or a failure
# stops it (PermissionRequest: a deny; PreCompact: exit 2); a failure alone does not stop a
# Stop again while Claude already continues for a hook (no endless loop); `allow` is nothing.
BLOCKABLE = ("PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact")
# README, "Events": where the model gets the hooks' context (PreCompact's plain stdout is
# compaction instructions, no context), and where plain stdout counts as context.
CONTEXT_EVENTS = (
    "PreToolUse",
    *POST_EVENTS,
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
)
PLAIN_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
# Protocol, section 3: "Strings over 10,000 characters are cut to a preview by CC"; README:
# contexts and system messages are joined "under CC's 10,000-character limit".
LIMIT = 10_000
# README: never emitted, whatever a sub-hook said (as keys or as values).
NEVER = ("allow", "defer", "approve", "updatedInput", "updatedToolOutput", "updatedMCPToolOutput")
_JOIN = "\n\n"  # README: reasons "joined by blank lines"; contexts and messages joined alike


# ----------------------------------------------------------------- what a text must look like


@dataclass(frozen=True)
class Text:
    """A text the oracle knows only in part: it must match `pattern` as a whole."""

    pattern: str
    why: str

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and re.fullmatch(self.pattern, value, re.DOTALL) is not None


@dataclass(frozen=True)
class Cut:
    """`full` over LIMIT characters: a preview of at most LIMIT characters, its start kept
    (ending in an ellipsis), and not cut much shorter than the limit."""

    full: str

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str) or not LIMIT // 2 <= len(value) <= LIMIT:
            return False
        return value.endswith("…") and self.full.startswith(value[:-1])


@dataclass(frozen=True)
class Maybe:
    """A key the oracle cannot require or forbid; when present its value must match."""

    value: Any


def _text(full: str) -> str | Cut:
    return full if len(full) <= LIMIT else Cut(full)


def _paragraph(hook: Hook, says: str | None) -> str:
    """One winning hook's part of the reason, as a regex: `[name] reason`, and where ccbridge
    words it, the hook's name, then anything that names what the README promises."""
    head = re.escape(f"[{hook.name}] ")
    if says is not None:
        return head + re.escape(says)
    named = "".join(f"(?=[^\n]*{re.escape(name)})" for name in hook.names)
    return head + named + r"[^\n]*\S[^\n]*"


def _reason(winners: list[Hook]) -> str | Text:
    """README: the winning rank's reasons, each as `[hook name] reason`, sorted, joined by blank
    lines. Names differ, so `[name]` alone fixes each paragraph's place in the sort."""
    ordered = sorted(winners, key=lambda hook: f"[{hook.name}]")
    says = [hook.says if hook.meaning != "failure" else None for hook in ordered]
    if all(text is not None for text in says):
        return _JOIN.join(f"[{hook.name}] {text}" for hook, text in zip(ordered, says, strict=True))
    parts = [_paragraph(hook, text) for hook, text in zip(ordered, says, strict=True)]
    return Text(re.escape(_JOIN).join(parts), "the winners' `[name] reason`s, sorted")


def _within(reason: str | Text, before: str, why: str) -> Text:
    inner = re.escape(reason) if isinstance(reason, str) else reason.pattern
    return Text(before + inner, why)


def _contexts(case: Case, blocked: bool) -> str | Cut | None:
    """Protocol, section 4: additionalContext from every hook is passed on; README: in config
    order, joined, under the limit. A refused prompt carries none (it never reaches the model)."""
    if case.event not in CONTEXT_EVENTS or (
        blocked and case.event not in ("PreToolUse", *POST_EVENTS)
    ):
        return None
    plain_counts = case.event in PLAIN_CONTEXT_EVENTS
    parts = [
        text
        for hook in case.ran
        for text in (hook.context, hook.plain if plain_counts else None)
        if text
    ]
    return _text(_JOIN.join(parts)) if parts else None


def _told(reason: str | Text) -> Text:
    return _within(reason, r"ccbridge\b.*", "ccbridge tells the user, in its own name")


def _system_message(case: Case, told: list[str | Text]) -> str | Cut | Text | None:
    """README: systemMessage values are joined in config order; an ignored failure is told to
    the user there, and so is a block where nothing can be stopped, in ccbridge's own name."""
    messages: list[str | Text] = [hook.message for hook in case.ran if hook.message]
    messages += [_told(_reason([hook])) for hook in case.ran if hook.meaning == "ignored"]
    messages += [_told(reason) for reason in told]
    if not messages:
        return None
    if all(isinstance(text, str) for text in messages):
        return _text(_JOIN.join(text for text in messages if isinstance(text, str)))
    pattern = re.escape(_JOIN).join(
        text.pattern if isinstance(text, Text) else re.escape(text) for text in messages
    )
    return Text(pattern, "the hooks' messages, then ccbridge's notices")


def _universal(case: Case, told: list[str | Text]) -> dict[str, Any]:
    """Protocol, section 3: systemMessage, and `continue: false` with its stopReason."""
    out: dict[str, Any] = {}
    message = _system_message(case, told)
    if message is not None:
        out["systemMessage"] = message
    stoppers = [hook.says for hook in case.ran if hook.meaning == "stop" and hook.says]
    if stoppers:
        out["continue"] = False
        out["stopReason"] = (
            stoppers[0]
            if len(stoppers) == 1
            else Text(
                "".join(f"(?=.*{re.escape(text)})" for text in stoppers) + ".*", "every stopReason"
            )
        )
    return out


# ---------------------------------------------------------------------- the expected answer


@dataclass(frozen=True)
class Expected:
    answer: Answer
    exit_code: int
    names: frozenset[str]  # hooks whose reasons the answer must carry, as "[name] ..."
    stdout: Any  # the whole JSON answer (str/Text/Cut/Maybe leaves), None for no output
    reason: str | Text | None = None  # also on stderr when the exit code is 2 (older CC)


def expected(case: Case) -> Expected:
    """What Claude Code must get back (README, "What CC gets back" and "Events"); for another
    agent, the same verdict in what that agent honours (docs/hosts.md)."""
    if case.host != "claude-code":
        return _in_dialect(case)
    return _for_cc(case)


def _for_cc(case: Case) -> Expected:
    if case.broken is not None:
        return _broken(case)
    if case.event in POST_EVENTS:
        return _post(case)
    if case.event in BLOCKABLE:
        return _blockable(case)
    if case.event != "PreToolUse":  # nothing to stop: a block is told to the user
        return _told_only(case)
    return _pre(case)


def _answer(event: str, fields: dict[str, Any], context: str | Cut | None) -> Any:
    """Protocol, section 3: the event's own fields in hookSpecificOutput with its name; no
    output at all when there is nothing to say (no decision, `{}`)."""
    specific = {key: value for key, value in fields.items() if value is not None}
    if context is not None:
        specific["additionalContext"] = context
    return {"hookEventName": event, **specific} if specific else None


def _stdout(out: dict[str, Any], specific: Any) -> Any:
    if specific is not None:
        out["hookSpecificOutput"] = specific
    return out or None


def _pre(case: Case) -> Expected:
    ranks = [(hook, _PRE_RANK[hook.meaning]) for hook in case.ran]
    answer: Answer = next((a for a in ("deny", "ask") if a in (r for _, r in ranks)), "none")
    winners = [hook for hook, rank in ranks if rank == answer != "none"]
    reason: str | Text | None = _reason(winners) if winners else None
    if answer == "ask" and case.approval == "none" and reason is not None:
        # DSH: an ask with no approval channel is a deny; the asks' reasons say what was asked.
        answer, reason = "deny", _within(reason, r".+", "why there is no one to ask, then the asks")
    exit_code = 2 if answer == "deny" else 0
    fields: dict[str, Any] = {
        "permissionDecision": answer if answer != "none" else None,
        "permissionDecisionReason": reason,
    }
    specific = _answer("PreToolUse", fields, _contexts(case, blocked=answer == "deny"))
    stdout = _stdout(_universal(case, []), specific)
    names = frozenset(hook.name for hook in winners)
    return Expected(answer, exit_code, names, stdout, reason)


def _post(case: Case) -> Expected:
    blockers = [hook for hook in case.ran if hook.meaning in _POST_BLOCKS]
    out = _universal(case, [])
    reason = _reason(blockers) if blockers else None
    if reason is not None:
        out.update(decision="block", reason=reason)
    specific = _answer(case.event, {}, _contexts(case, blocked=reason is not None))
    answer: Answer = "block" if blockers else "none"
    names = frozenset(hook.name for hook in blockers)
    return Expected(answer, 0, names, _stdout(out, specific))


# Protocol, section 3: `continue: false` stops Claude; on Stop a block would keep it working
# instead, so there it is passed on as it is and blocks nothing.
KEEP_GOING_EVENTS = ("Stop", "SubagentStop")


def _blockable(case: Case) -> Expected:
    stoppers = [
        hook
        for hook in case.ran
        if hook.meaning in _POST_BLOCKS
        and not (hook.meaning == "stop" and case.event in KEEP_GOING_EVENTS)
    ]
    failures_only = all(hook.meaning == "failure" for hook in stoppers)
    loops = case.stop_hook_active and failures_only and case.event in KEEP_GOING_EVENTS
    if stoppers and loops:  # blocking again would loop: the user is told instead
        out = _universal(case, [_reason(stoppers)])
        return Expected("none", 0, frozenset(), _stdout(out, _answer(case.event, {}, None)))
    out = _universal(case, [])
    names = frozenset(hook.name for hook in stoppers)
    if not stoppers:
        specific = _answer(case.event, {}, _contexts(case, blocked=False))
        return Expected("none", 0, names, _stdout(out, specific))
    reason = _reason(stoppers)
    if case.event == "PermissionRequest":
        decision = {"behavior": "deny", "message": reason}
        specific = _answer(case.event, {"decision": decision}, None)
        return Expected("deny", 0, names, _stdout(out, specific))
    out.update(decision="block", reason=reason)
    exit_code = 2 if case.event == "PreCompact" else 0  # README: PreCompact blocks on exit 2
    return Expected("block", exit_code, names, _stdout(out, None), reason)


def _told_only(case: Case) -> Expected:
    stoppers = [hook for hook in case.ran if hook.meaning in _POST_BLOCKS]
    out = _universal(case, [_reason(stoppers)] if stoppers else [])
    specific = _answer(case.event, {}, _contexts(case, blocked=False))
    return Expected("none", 0, frozenset(), _stdout(out, specific))


def _broken(case: Case) -> Expected:
    """Nothing was judged: the gate fails closed, and ccbridge says why in its own name; a
    config that cannot be loaded is named with its file and line (README)."""
    where = r".*\bconfig\.yaml:\d+: \S.*" if case.broken == "bad-config" else r".*\S.*"
    reason = Text(r"ccbridge\b" + where, "ccbridge's own reason")
    if case.event in POST_EVENTS:
        # The model is told (a block); telling the user too is ccbridge's choice.
        stdout = {"decision": "block", "reason": reason, "systemMessage": Maybe(reason)}
        return Expected("block", 0, frozenset(), stdout)
    fields = {"permissionDecision": "deny", "permissionDecisionReason": reason}
    return Expected(
        "deny", 2, frozenset(), {"hookSpecificOutput": _answer("PreToolUse", fields, None)}, reason
    )


# ------------------------------------------------------------------ the other agents' words


def _in_dialect(case: Case) -> Expected:
    """docs/hosts.md, from each agent's hook docs and source: exit 2 with the reason on stderr
    blocks on all of them; Gemini CLI and Grok read `decision: deny` + `reason`; Cursor its
    `permission`/`user_message`/`agent_message` (and CC's fields), `followup_message` to keep
    working, and wants JSON on every path; Codex refuses `continue`/`stopReason` on a
    PreToolUse answer. No agent has a hook prompt ccbridge relies on: an ask is a deny."""
    cc = expected(Case(case.event, case.ran, case.broken, case.approval, case.stop_hook_active))
    answer, exit_code, reason, stdout = cc.answer, cc.exit_code, cc.reason, cc.stdout
    if answer == "ask" and case.event == "PreToolUse":
        asked = stdout["hookSpecificOutput"]["permissionDecisionReason"]
        reason = _within(asked, "", "the asks' reasons")
        reason = Text(reason.pattern + r"\n\(ccbridge: .+\)", "the asks, then why no one is asked")
        stdout = {**stdout, "hookSpecificOutput": {
            **stdout["hookSpecificOutput"], "permissionDecision": "deny",
            "permissionDecisionReason": reason}}  # fmt: skip
        answer, exit_code = "deny", 2
    pre_deny = answer == "deny" and case.event == "PreToolUse"
    if case.host == "codex":
        if case.event == "PreToolUse" and stdout:
            stdout = {k: v for k, v in stdout.items() if k not in ("continue", "stopReason")}
    elif case.host in ("gemini", "grok") and pre_deny:
        stdout = {"decision": "deny", "reason": reason}
    elif case.host == "cursor":
        stdout = dict(stdout or {})
        if pre_deny:
            stdout.update(permission="deny", decision="deny", reason=reason)
            stdout.update(user_message=reason, agent_message=reason)
        if answer == "block" and case.event in KEEP_GOING_EVENTS:
            stdout["followup_message"] = stdout["reason"]
    return Expected(answer, exit_code, cc.names, stdout, reason)


# ------------------------------------------------------------------------------- comparing


def mismatches(want: Any, got: Any, where: str = "stdout") -> list[str]:
    """How `got` (parsed JSON) differs from what the oracle predicts; empty when it agrees."""
    if isinstance(want, Text | Cut):
        if want.matches(got):
            return []
        why = want.why if isinstance(want, Text) else f"a preview of {len(want.full)} characters"
        return [f"{where}: {_short(got)} is not {why}"]
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where}: expected an object, got {_short(got)}"]
        required = {key for key, value in want.items() if not isinstance(value, Maybe)}
        lines = [f"{where}: missing {key!r}" for key in sorted(required - set(got))]
        lines += [
            f"{where}: unexpected {key!r}: {_short(got[key])}"
            for key in sorted(set(got) - set(want))
        ]
        for key in sorted(set(want) & set(got)):
            value = want[key].value if isinstance(want[key], Maybe) else want[key]
            lines += mismatches(value, got[key], f"{where}.{key}")
        return lines
    if want != got or type(want) is not type(got):
        return [f"{where}: expected {_short(want)}, got {_short(got)}"]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


def emitted(value: Any) -> list[Any]:
    """Every key and every leaf value of a JSON answer."""
    if isinstance(value, dict):
        return [part for key, item in value.items() for part in (key, *emitted(item))]
    if isinstance(value, list):
        return [part for item in value for part in emitted(item)]
    return [value]


def check(case: Case, stdout: Any, exit_code: int | None, stderr: str | None = None) -> list[str]:
    """Every way an answer (stdout parsed, exit code, and stderr where known) breaks the oracle."""
    want = expected(case)
    lines = mismatches(want.stdout, stdout)
    if exit_code != want.exit_code:
        lines.append(f"exit code: expected {want.exit_code}, got {exit_code}")
    lines += [f"never emitted, but found {never!r}" for never in NEVER if never in emitted(stdout)]
    if stderr is not None and want.exit_code == 2 and want.reason is not None:
        # Protocol, section 3: on exit 2 older CC reads the reason from stderr.
        on_stderr = (
            want.reason in stderr
            if isinstance(want.reason, str)
            else any(want.reason.matches(line) for line in stderr.splitlines())
            or want.reason.matches(stderr.strip())
        )
        if not on_stderr:
            lines.append(f"stderr does not carry the reason: {_short(stderr)}")
    return lines
