"""JSON in and out for a hook call, at less than the standard library's import cost.

Importing `json` costs a hook call milliseconds (it imports `re` and compiles its patterns), and
orjson more (it imports `dataclasses`, `inspect`, `uuid`, `datetime` and `json`). A hook call
reads and writes small documents, so it goes straight to the C scanner and encoder that `json`
itself uses (`_json`): the values are `json.loads`'s and the bytes `json.dumps`'s (compact,
UTF-8), with strict JSON on both sides. Reading a large audit log is the one place orjson's
speed pays for its import, and `bridge.audit.log` uses it there directly.

Strict JSON: `NaN`, `Infinity` and a number too large for a double are refused when read and
when written, and so is a lone surrogate (`"\\ud800"`): no UTF-8 encoding can write it back,
and ccbridge writes every event it reads into its audit record.
"""

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from json import JSONDecodeError as DecodeError
    from typing import Any

__all__ = ["DecodeError", "dumps", "loads"]

_WHITESPACE = " \t\n\r"  # JSON's, no other
_SURROGATE_SECOND = frozenset("89abcdefABCDEF")  # \uD800-\uDFFF


def __getattr__(name: str) -> "Any":
    """`DecodeError` is `json.JSONDecodeError` (a ValueError with the line and column): imported
    when an error is raised or caught, so a call without one never imports `json`."""
    if name == "DecodeError":
        import json

        return json.JSONDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _error(message: str, text: str, at: int) -> "ValueError":
    from json import JSONDecodeError  # only on the error path

    return JSONDecodeError(message, text, at)


class _Refused(ValueError):
    """A number or constant strict JSON has no value for (`_Reading` raises it mid-scan)."""


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # overflows a double: no JSON could write it
        raise _Refused(f"number out of range: {text}")
    return value


def _constant(text: str) -> "Any":  # NaN, Infinity, -Infinity: `json` reads them, JSON has none
    raise _Refused(f"not JSON: {text}")


class _Reading:
    """The settings `_json.make_scanner` reads, as `json.JSONDecoder` would hold them."""

    def __init__(self, object_pairs_hook: "Any" = None) -> None:
        self.strict = True  # no control characters inside strings
        self.object_hook = None
        self.object_pairs_hook = object_pairs_hook
        self.parse_int, self.parse_float, self.parse_constant = int, _float, _constant


def _encode_error(value: "Any") -> "Any":
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# typeshed wants a scanner as the context; any object with the settings will do.
_SCAN = _json.make_scanner(_Reading())  # type: ignore[arg-type]
# (markers, default, encoder, indent, key and item separators, sort_keys, skipkeys, allow_nan)
_ENCODE = {
    sort: _json.make_encoder(
        None, _encode_error, _json.encode_basestring, None, ":", ",", sort, False, False
    )
    for sort in (False, True)
}


def _has_lone_surrogate(value: "Any") -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            try:
                item.encode()
            except UnicodeEncodeError:
                return True
        elif kind is dict:
            stack.extend(item)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def _may_hold_surrogate(text: str) -> bool:
    r"""Whether a \uD800-\uDFFF escape may be present (a false alarm costs a walk, no more)."""
    at = text.find("\\u")
    while at != -1:
        if text[at + 2 : at + 3] in ("d", "D") and text[at + 3 : at + 4] in _SURROGATE_SECOND:
            return True
        at = text.find("\\u", at + 2)
    return False


def loads(data: bytes) -> "Any":
    """The value of one JSON document, as `json.loads` reads it; anything else, strict JSON's
    refusals included, raises DecodeError with where it is."""
    return _loads_with(_SCAN, data)


def _loads_with(scan: "Any", data: bytes) -> "Any":
    try:
        return _loads(scan, data)
    except SystemError:
        # The C scanner finds its error class in an imported `json.decoder` and fails without
        # it: import it (an error is the rare case) and read again for the error and its place.
        import json.decoder  # noqa: F401

        return _loads(scan, data)


def _loads(scan: "Any", data: bytes) -> "Any":
    try:
        text = data.decode("utf-8")  # strict: refuses encoded surrogates
    except UnicodeDecodeError as error:
        raise _error(f"not UTF-8: {error.reason}", "", error.start) from None
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except StopIteration as stop:  # no value where one must be
        raise _error("Expecting value", text, stop.value) from None
    except RecursionError:
        raise _error("nested too deeply", text, start) from None
    except ValueError as error:
        if hasattr(error, "lineno"):  # the scanner's own JSONDecodeError
            raise
        raise _error(str(error), text, start) from None  # refused numbers and constants
    if text[end:].strip(_WHITESPACE):
        raise _error("Extra data", text, end)
    if _may_hold_surrogate(text) and _has_lone_surrogate(value):
        raise _error("lone surrogate", text, start)
    return value


def dumps(value: "Any", *, sort_keys: bool = False) -> bytes:
    """`value` as compact UTF-8 JSON (keys sorted when asked), as `json.dumps` writes it with
    `ensure_ascii=False`; a value JSON cannot hold raises TypeError or ValueError."""
    try:
        return "".join(_ENCODE[sort_keys](value, 0)).encode()
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone surrogate, which UTF-8 cannot encode") from None
