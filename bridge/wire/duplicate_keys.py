"""Reading a JSON document that may name a key twice: a sub-hook's answer, whose duplicate
keys ccbridge reads at their strictest (bridge.wire.hook_output). Apart from bridge.wire.jsonio
so that a hook call without sub-hooks neither makes the class nor the scanner."""

import _json

from bridge.wire import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Ambiguous(dict):  # type: ignore[type-arg]
    """An object that names a key twice with different values. As a dict it holds the last
    value of each key (what `json.loads`, and JavaScript's `JSON.parse` in Claude Code, read);
    `readings` holds every value of each key that was given more than one, in order."""

    readings: "dict[str, list[Any]]"


def _pairs(pairs: "list[tuple[str, Any]]") -> "dict[str, Any]":
    value = dict(pairs)
    if len(value) == len(pairs):  # the common case: no key twice
        return value
    seen: dict[str, list[Any]] = {}
    for key, item in pairs:
        seen.setdefault(key, []).append(item)
    # Objects and arrays are kept whatever they compare as: equal to the eye, one of them may
    # hide a key given twice of its own (an Ambiguous equals the dict of its last values).
    readings = {
        key: items
        for key, items in seen.items()
        if len(items) > 1
        and any(item != items[0] or type(item) in (dict, list, Ambiguous) for item in items)
    }
    if not readings:  # a key repeated with the same value says one thing
        return value
    ambiguous = Ambiguous(value)
    ambiguous.readings = readings
    _made[0] += 1
    return ambiguous


# How many Ambiguous objects were made so far: a reader learns whether its document holds one
# without walking it (another thread's reading can only make it look when it need not).
_made = [0]


# typeshed wants a scanner as the context; any object with the settings will do.
_SCAN = _json.make_scanner(jsonio._Reading(_pairs))  # type: ignore[arg-type]


def loads_keeping_duplicates(data: bytes) -> "tuple[Any, bool]":
    """As `jsonio.loads`, but an object naming a key twice with different values is an `Ambiguous`
    that keeps every value; with whether the value holds one. A sub-hook's answer is read that
    way (it costs a call per object, so not the event, which may be megabytes)."""
    before = _made[0]
    value = jsonio._loads_with(_SCAN, data)
    return value, _made[0] != before
