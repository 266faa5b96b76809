"""What a guard answered, asserted as a decision and a reason: a guard returns None (no
objection), a string (a denial) or an Ask (a question), and a test named for a denial or a
question says which of the two it got and why, not only that it got something."""

from __future__ import annotations

from bridge.pipeline.decisions import Ask, Deny


def plain(verdict: str | Deny | Ask | None) -> str | Ask | None:
    """A guard's answer in the plain forms above: a denial as its reason string, never wrapped
    in a Deny (the guards of bridge.guards answer so, and their tests compare the string)."""
    assert not isinstance(verdict, Deny), f"a denial wrapped in a Deny: {verdict!r}"
    return verdict


def denied(verdict: object, *words: str) -> str:
    """The reason of a denial holding each of `words`; fails on a question or no objection."""
    assert isinstance(verdict, str), f"not denied: {verdict!r}"
    for word in words:
        assert word in verdict, f"{word!r} not in the reason: {verdict}"
    return verdict


def asked(verdict: object, *words: str) -> str:
    """The reason of a question holding each of `words`; fails on a denial or no objection."""
    assert isinstance(verdict, Ask), f"not asked: {verdict!r}"
    for word in words:
        assert word in verdict.reason, f"{word!r} not in the reason: {verdict.reason}"
    return verdict.reason


def objected(verdict: object, *words: str) -> str:
    """The reason of a denial or a question (for a law that holds of both)."""
    reason = verdict.reason if isinstance(verdict, Ask) else verdict
    assert isinstance(reason, str) and reason, f"no objection: {verdict!r}"
    for word in words:
        assert word in reason, f"{word!r} not in the reason: {reason}"
    return reason
