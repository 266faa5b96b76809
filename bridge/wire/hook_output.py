"""Reading a sub-hook's exit code and output the way Claude Code reads them."""

from __future__ import annotations

from bridge.pipeline.valueclass import replace
from bridge.subhooks.verdict import HookRun, Verdict
from bridge.wire import duplicate_keys, jsonio
from bridge.wire.event import MAX_JSON_DEPTH, SKILL_SHELL, deeper_than

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping
    from typing import Any

_PRE_DECISIONS = {"allow": "allow", "deny": "deny", "ask": "ask", "defer": "defer"}
_LEGACY = {"approve": "allow", "block": "deny"}
_TAIL = 2000
# Events where CC takes an exit-0 hook's plain (non-JSON) stdout as context for the model (for
# PreCompact: as compaction instructions).
PLAIN_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart", "PreCompact"})
# Events where a block means "keep going": `continue: false` there is no block but a stop.
_KEEP_GOING_EVENTS = frozenset({"Stop", "SubagentStop"})
# Events answered with PreToolUse's permissionDecision. A skill's inline command takes a
# PreToolUse-shaped answer too (Claude Code 2.1.332 reads either hookEventName there).
_PERMISSION_EVENTS = frozenset({"PreToolUse", "PreSkillShellCommand"})


def _text(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text if len(text) <= _TAIL else "…" + text[-_TAIL:]


def _string(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string, got {type(value).__name__}")
    return value


def read_run(event_name: str, run: HookRun) -> Verdict:
    """CC's rules: exit 0 + JSON starting with `{` is read; exit 2 blocks with stderr as reason
    (a valid JSON reason on stdout wins, as on newer CC); any other exit is a failure."""
    if run.error is not None:
        if run.exit_code is not None:  # exited, stdout held open: a deny already read stands
            said = read_run(event_name, HookRun(exit_code=run.exit_code, stdout=run.stdout))
            if said.kind in ("deny", "block"):
                return replace(said, reason=f"{said.reason} (and it {run.error})")
        return Verdict("failure", reason=run.error)
    stdout = run.stdout.strip()
    if run.exit_code == 2:
        reason = _text(run.stderr)
        if stdout.startswith(b"{"):
            try:
                verdict = read_json(event_name, stdout)
            except ValueError:
                verdict = None
            if verdict is not None and verdict.reason:
                reason = verdict.reason
        return Verdict(
            "deny" if event_name in _PERMISSION_EVENTS else "block",
            reason=reason or "exited with code 2",
        )
    if run.exit_code != 0:
        detail = _text(run.stderr) or _text(run.stdout)
        return Verdict(
            "failure",
            reason=f"exited with code {run.exit_code}" + (f": {detail}" if detail else ""),
        )
    if not stdout.startswith(b"{"):
        context = _text(run.stdout) if event_name in PLAIN_CONTEXT_EVENTS else ""
        return Verdict("none", context=context)
    try:
        return read_json(event_name, stdout)
    except ValueError as error:
        return Verdict("failure", reason=f"printed invalid output: {error}")


def read_json(event_name: str, stdout: bytes) -> Verdict:
    """The JSON answer of an exit-0 hook. Raises ValueError for anything CC would not accept.

    An object that names a key twice with different values (`"permissionDecision": "deny", …,
    "permissionDecision": "allow"`) is ambiguous: Claude Code reads the last value, another
    reader the first. Every reading is judged and the strictest one stands, saying so."""
    try:
        payload, ambiguous = duplicate_keys.loads_keeping_duplicates(stdout)
    except jsonio.DecodeError as error:
        raise ValueError(f"malformed JSON at line {error.lineno} column {error.colno}") from None
    if not isinstance(payload, dict):
        raise ValueError("JSON output is not an object")
    if deeper_than(payload, MAX_JSON_DEPTH):
        raise ValueError(f"JSON output is nested deeper than the {MAX_JSON_DEPTH}-level cap")
    if not ambiguous:  # the common case: no key given twice with different values
        return _read_payload(event_name, payload)
    duplicated: set[str] = set()
    readings = _readings(payload, duplicated)
    if readings is None:
        return Verdict(
            "deny" if event_name in _PERMISSION_EVENTS else "block",
            reason=f"ambiguous output: its duplicate keys ({', '.join(sorted(duplicated))}) "
            f"give more than {MAX_READINGS} readings",
        )
    if len(readings) == 1:
        return _read_payload(event_name, payload)
    return _strictest(event_name, readings, sorted(duplicated))


MAX_READINGS = 64  # readings of an ambiguous answer judged one by one; more is a deny
# How strict each reading of an ambiguous answer is; an invalid reading ranks as a failure.
_STRICTNESS = {"allow": 0, "none": 1, "defer": 2, "ask": 3, "failure": 4, "deny": 5, "block": 5}


def strictness(verdict: Verdict) -> int:
    return _STRICTNESS[verdict.kind]


def _strictest(event_name: str, readings: list[Any], duplicated: list[str]) -> Verdict:
    said = f"ambiguous output (keys given twice with different values: {', '.join(duplicated)})"
    verdicts = []
    for reading in readings:
        try:
            verdicts.append(_read_payload(event_name, reading))
        except ValueError as error:
            verdicts.append(Verdict("failure", reason=str(error)))
    # The strictest kind, and among its readings one that also stops Claude, if any does.
    top = max(verdicts, key=lambda verdict: (strictness(verdict), verdict.stop_reason is not None))
    if all(verdict == top for verdict in verdicts):  # every reading says the same
        return top
    if top.kind == "failure":
        raise ValueError(f"{said}: a reading of it is invalid: {top.reason}")
    if top.kind not in ("deny", "block") and any(
        verdict.updated_input != top.updated_input
        for verdict in verdicts
        if verdict.kind == top.kind
    ):
        raise ValueError(f"{said}: its readings change the tool's input differently")
    reason = f"{said}, read as the strictest reading, {top.kind}" + (
        f": {top.reason}" if top.reason else ""
    )
    return replace(top, reason=reason)


def _readings(value: Any, duplicated: set[str]) -> list[Any] | None:
    """Every way of reading `value` that takes one value of each key given twice (None: more
    than MAX_READINGS); `[value]` itself when no key is, the common case, without a copy.
    The keys given twice are added to `duplicated`."""
    if type(value) is list:
        options = []
        for item in value:
            found = _readings(item, duplicated)
            if found is None:
                return None
            options.append(found)
        if all(len(choices) == 1 for choices in options):
            return [value]
        return _product(options)
    if not isinstance(value, dict):
        return [value]
    alternatives = value.readings if type(value) is duplicate_keys.Ambiguous else {}
    duplicated.update(alternatives)
    keys, per_key = [], []
    for key, last in value.items():
        choices: list[Any] = []
        for item in alternatives.get(key, (last,)):
            found = _readings(item, duplicated)
            if found is None:
                return None
            choices.extend(found)
        keys.append(key)
        per_key.append(choices)
    if not alternatives and all(len(choices) == 1 for choices in per_key):
        return [value]
    combos = _product(per_key)
    return None if combos is None else [dict(zip(keys, combo, strict=True)) for combo in combos]


def _product(options: list[list[Any]]) -> list[list[Any]] | None:
    """Each choice of one item from every list, or None when there are more than
    MAX_READINGS."""
    combos: list[list[Any]] = [[]]
    for choices in options:
        if len(combos) * len(choices) > MAX_READINGS:
            return None
        combos = [[*combo, item] for combo in combos for item in choices]
    return combos


def _read_payload(event_name: str, payload: Mapping[str, Any]) -> Verdict:
    specific = payload.get("hookSpecificOutput")
    if specific is None:
        specific = {}
    elif not isinstance(specific, dict):
        raise ValueError("hookSpecificOutput must be an object")
    elif specific.get("hookEventName") != event_name and not (
        event_name == SKILL_SHELL and specific.get("hookEventName") == "PreToolUse"
    ):
        raise ValueError(
            f"hookSpecificOutput.hookEventName is {specific.get('hookEventName')!r}, "
            f"expected {event_name!r}"
        )
    system_message = _string(payload, "systemMessage")
    context = _string(specific, "additionalContext")
    stop_reason = None
    if "continue" in payload:
        if not isinstance(payload["continue"], bool):
            raise ValueError("continue must be a boolean")
        if payload["continue"] is False:
            stop_reason = _string(payload, "stopReason") or "a hook asked Claude to stop"
    updated_input = specific.get("updatedInput")
    if event_name == "PermissionRequest" and isinstance(specific.get("decision"), dict):
        updated_input = specific["decision"].get("updatedInput", updated_input)
    if updated_input is not None and not isinstance(updated_input, dict):
        raise ValueError("updatedInput must be an object")
    kind, reason = _decision(event_name, payload, specific)
    if event_name == SKILL_SHELL and updated_input is not None and kind not in ("deny", "block"):
        # Claude Code runs no changed inline command: any updatedInput keeps it from running.
        kind, reason = "deny", "the hook changed the command, which a skill's command cannot take"
    keeps_going = event_name in _KEEP_GOING_EVENTS
    if stop_reason is not None and kind not in ("deny", "block") and not keeps_going:
        kind = "deny" if event_name in _PERMISSION_EVENTS else "block"
        reason = stop_reason
    updated_output = specific.get("updatedToolOutput", specific.get("updatedMCPToolOutput"))
    return Verdict(
        kind,
        reason=reason,
        context=context,
        system_message=system_message,
        updated_input=updated_input,
        updated_output=updated_output,
        stop_reason=stop_reason,
    )


def _decision(
    event_name: str, payload: Mapping[str, Any], specific: Mapping[str, Any]
) -> tuple[Any, str]:
    legacy = payload.get("decision")
    if legacy is not None and legacy not in ("approve", "block"):
        raise ValueError(f"decision must be 'approve' or 'block', got {legacy!r}")
    legacy_reason = _string(payload, "reason")
    if event_name in _PERMISSION_EVENTS:
        decision = specific.get("permissionDecision")
        if decision is not None:
            if decision not in _PRE_DECISIONS:
                raise ValueError(
                    f"permissionDecision {decision!r} is not one of allow, deny, ask, defer"
                )
            reason = _string(specific, "permissionDecisionReason") or legacy_reason
            return _PRE_DECISIONS[decision], reason
        if legacy is not None:
            return _LEGACY[legacy], legacy_reason
        return "none", ""
    if event_name == "PermissionRequest" and specific.get("decision") is not None:
        return _permission_decision(specific["decision"])
    if legacy == "block":
        return "block", legacy_reason or "blocked by a hook"
    return "none", ""


def _permission_decision(decision: Any) -> tuple[Any, str]:
    """PermissionRequest's `decision: {behavior: allow|deny, message?}`."""
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        raise ValueError("hookSpecificOutput.decision must be {behavior: 'allow' or 'deny'}")
    return decision["behavior"], _string(decision, "message")
