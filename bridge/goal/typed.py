"""Whether a person typed a prompt: read from what Claude Code itself wrote about it.

Claude Code sends `UserPromptSubmit` for more than a person's prompt: a background task's
completion notice, a wake-up the model scheduled (`ScheduleWakeup`), a cron fire, a
teammate's or another session's message. The hook's stdin does not say which on 2.1.332,
2.1.333 or 2.1.335: their schema names a `source` field (`user`, `sdk`, `system`,
`loop_wakeup`, `schedule_wakeup`, `poll_event`) but the builds never send it (measured; the
binary spreads `...!1` where it would go). A notice reuses the running turn's `prompt_id`; a
wake-up gets a new one; the prompt text of a wake-up is the model's own.

What does tell them apart is the session transcript (`transcript_path`), written by Claude
Code: the entry of a person's prompt is a `user` entry with the prompt's `promptId`, its text,
`promptSource` `typed`, `queued` (typed while Claude worked) or `sdk` (the `-p` prompt or an
SDK host's), and no `origin` other than `kind: human`; a delivery is written with an `origin`
(`kind: task-notification` and its subkinds), `isMeta`, a `wakeupSource` or
`scheduledTaskId`, or only as a `queued_command` attachment. The entry is written after the
hook returns (measured: at the hook the transcript holds only a `queue-operation` for it), so
the prompt is recorded unconfirmed at UserPromptSubmit and confirmed here when a goal command
needs a person's authority, by which time Claude Code has written it.

Everything not shown as typed is not typed: no entry, an entry that disagrees with the prompt,
an unreadable transcript, any matching entry with a mark of a delivery.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bridge.paths import NotRegular, open_regular

# The `source` values of the UserPromptSubmit schema (2.1.332 to 2.1.335) that can be a person:
# `user` from the interactive composer, `sdk` from `-p` or an SDK host.
PERSON_SOURCES = frozenset({"user", "sdk"})
TYPED_PROMPT_SOURCES = frozenset({"typed", "queued", "sdk"})
PERSON_TURN_ORIGINS = frozenset({"human", "sdk"})
DELIVERY_MARKS = ("wakeupSource", "scheduledTaskId", "scheduledFireId", "handedOff")
# Only the end of a transcript is read: the open turn's prompt is recent. A prompt further back
# is not found, and so not taken as typed.
TAIL_BYTES = 64 * 1024 * 1024
# Claude Code writes a prompt's entry after its UserPromptSubmit hook returned, from a buffer it
# flushes by itself, so a goal command the model sends at once can come first (measured with
# 2.1.197 on a loaded machine: no transcript file yet 110 ms after the prompt's hook). What is
# not there yet is waited for, this long, before it counts as not typed; what is there and
# says no is final at once.
SETTLE = 3.0
_POLL = 0.05
NO_ENTRY = "the transcript holds no entry showing a person typed it"


@dataclass(frozen=True, slots=True)
class PromptRef:
    """A submitted prompt as the UserPromptSubmit hook saw it: its id and its text's digest."""

    prompt_id: str
    digest: str


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def not_a_person(event: Mapping[str, Any]) -> str | None:
    """Why a UserPromptSubmit event shows by itself that no person typed it, else None (which
    is no proof of a person: only the transcript is)."""
    source = event.get("source")
    if source is not None and source not in PERSON_SOURCES:
        return f"Claude Code says the prompt came from {source!r}, not from a person"
    return None


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            block.get("text") for block in content if isinstance(block, dict) and "text" in block
        ]
        if len(texts) == 1 and isinstance(texts[0], str):
            return texts[0]
    return None


def _origin_kind(entry: Mapping[str, Any]) -> str | None:
    origin = entry.get("origin")
    if origin is None:
        return None
    if not isinstance(origin, dict):
        return "unreadable"
    kind = origin.get("kind")
    subkind = origin.get("subkind")
    return f"{kind}/{subkind}" if subkind else str(kind)


def _why_not_typed(entry: Mapping[str, Any]) -> str | None:
    origin = _origin_kind(entry)
    if origin is not None and origin != "human":
        return f"the transcript shows it as delivered by Claude Code (origin {origin})"
    if entry.get("isMeta") is True or entry.get("textNotTyped") is True:
        return "the transcript marks it as text no person typed (isMeta)"
    marks = [mark for mark in DELIVERY_MARKS if entry.get(mark) not in (None, False)]
    if marks:
        return f"the transcript marks it as scheduled or handed over ({', '.join(marks)})"
    source = entry.get("promptSource")
    if source not in TYPED_PROMPT_SOURCES:
        return f"the transcript gives its promptSource as {source!r}, not typed"
    turn_origin = entry.get("turnOrigin")
    if turn_origin is not None and turn_origin not in PERSON_TURN_ORIGINS:
        return f"the transcript gives its turnOrigin as {turn_origin!r}"
    return None


def _is_queued(attachment: Mapping[str, Any], prompt: PromptRef) -> bool:
    if attachment.get("type") != "queued_command":
        return False
    text = _text(attachment.get("prompt"))
    return text is not None and digest(text) == prompt.digest


def judge_entries(entries: Iterable[Mapping[str, Any]], prompt: PromptRef) -> str | None:
    """None when the transcript entries show that a person typed `prompt`, else why not."""
    found = 0
    for entry in entries:
        if entry.get("type") == "attachment":
            attachment = entry.get("attachment")
            if not isinstance(attachment, dict) or not _is_queued(attachment, prompt):
                continue
            # Folded into the running turn: typed only when marked as a person's.
            kind = _origin_kind(attachment)
            if kind != "human" or attachment.get("isMeta") is True:
                return f"the transcript shows it as a queued delivery ({kind or 'no origin'})"
            found += 1
            continue
        if entry.get("type") != "user" or entry.get("promptId") != prompt.prompt_id:
            continue
        message = entry.get("message")
        text = _text(message.get("content")) if isinstance(message, dict) else None
        if text is None or digest(text) != prompt.digest:
            continue
        why = _why_not_typed(entry)
        if why is not None:
            return why
        found += 1
    if not found:
        return NO_ENTRY
    return None


def _tail_lines(path: str, marker: bytes) -> list[bytes]:
    descriptor = open_regular(path)
    with os.fdopen(descriptor, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - TAIL_BYTES))
        data = handle.read(TAIL_BYTES)
    # Only lines that name the prompt or a queued delivery are parsed: a long transcript costs
    # one byte search, not a JSON parse of every line.
    return [line for line in data.split(b"\n") if marker in line or b"queued_command" in line]


def judge_transcript(path: object, prompt: PromptRef, settle: float = SETTLE) -> str | None:
    """None when the transcript at `path` shows that a person typed `prompt`, else why not;
    an entry or a transcript not written yet is waited for, `settle` seconds at most."""
    until = time.monotonic() + settle
    while True:
        why, final = _judged_once(path, prompt)
        if why is None or final or time.monotonic() >= until:
            return why
        time.sleep(_POLL)


def _judged_once(path: object, prompt: PromptRef) -> tuple[str | None, bool]:
    """(why not typed, whether waiting could change that)."""
    if not isinstance(path, str) or not path:
        return "the hook event names no transcript", True
    try:
        lines = _tail_lines(path, prompt.prompt_id.encode("utf-8", "surrogatepass"))
    except FileNotFoundError as error:
        return f"the transcript cannot be read ({type(error).__name__})", False
    except (OSError, NotRegular) as error:
        return f"the transcript cannot be read ({type(error).__name__})", True
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    why = judge_entries(entries, prompt)
    return why, why != NO_ENTRY
