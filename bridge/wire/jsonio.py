"""JSON in and out with orjson's exact results, at less than the standard library's import cost.

Importing orjson costs a hook call more than the rest of ccbridge together: it imports
`dataclasses`, `inspect`, `uuid`, `datetime` and `json` to recognise those types. Importing
`json` costs a few milliseconds too: it imports `re` and compiles its patterns. So the common
case goes straight to the C scanner and encoder that `json` itself uses (`_json`), limited to
the inputs where they give byte-for-byte orjson's result, and anything else (an error to report,
a float to print with an exponent, a lone surrogate, NaN, an integer past 64 bits, deep nesting,
or a document past a megabyte, where orjson's speed repays its import) is handed to orjson
itself, imported only then. Every value and every error message is orjson's.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from json import JSONDecodeError as DecodeError
    from types import ModuleType
    from typing import Any

__all__ = ["DecodeError", "dumps", "loads"]

_INT_RANGE = range(-(1 << 63), 1 << 64)  # what orjson reads as an int; larger become floats
_PLAIN = (str, int, bool, type(None))
# Past a megabyte orjson's speed (about 4x) repays importing it.
_LARGE = 1 << 20
# Containers nested deeper than this go to orjson, which refuses to write past 254 levels and to
# read past 1024 (the standard library's limit is the interpreter's recursion limit).
_DEPTH = 200
_WHITESPACE = " \t\n\r"  # JSON's, no other
_SURROGATE_SECOND = frozenset("89abcdefABCDEF")  # \uD800-\uDFFF


def __getattr__(name: str) -> Any:
    """`DecodeError`, orjson's error class's base (`json.JSONDecodeError`): imported when an
    error is caught, so a call without one never imports `json`."""
    if name == "DecodeError":
        import json

        return json.JSONDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _orjson() -> ModuleType:
    import orjson

    return orjson


class _Divergent(ValueError):
    """A value the standard library reads differently from orjson."""


def _int(text: str) -> int:
    value = int(text)
    if value not in _INT_RANGE:
        raise _Divergent(text)
    return value


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # orjson refuses what overflows a double
        raise _Divergent(text)
    return value


def _refuse(text: str) -> Any:  # NaN, Infinity, -Infinity: not JSON, orjson refuses them
    raise _Divergent(text)


def _surrogate_escape(text: str) -> bool:
    r"""Whether a \uD800-\uDFFF escape may be present (false alarms only cost speed)."""
    at = text.find("\\u")
    while at != -1:
        if text[at + 2 : at + 3] in ("d", "D") and text[at + 3 : at + 4] in _SURROGATE_SECOND:
            return True
        at = text.find("\\u", at + 2)
    return False


class _Reading:
    """The settings `_json.make_scanner` reads, as `json.JSONDecoder` would hold them."""

    def __init__(self) -> None:
        self.strict = True  # no control characters inside strings, as orjson
        self.object_hook = self.object_pairs_hook = None
        self.parse_int, self.parse_float, self.parse_constant = _int, _float, _refuse


def _encode_error(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# typeshed wants a scanner as the context; any object with the settings will do.
_SCAN = _json.make_scanner(_Reading())  # type: ignore[arg-type]
_ENCODE = {
    sort: _json.make_encoder(
        None, _encode_error, _json.encode_basestring, None, ":", ",", sort, False, True
    )
    for sort in (False, True)
}


def _std_loads(text: str) -> Any:
    """`json.loads(text)`, without importing `json`: raises ValueError or StopIteration."""
    start = len(text) - len(text.lstrip(_WHITESPACE))
    value, end = _SCAN(text, start)
    if text[end:].strip(_WHITESPACE):
        raise ValueError("extra data")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if type(item) is dict:
            item = item.values()
        elif type(item) is not list:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in item)
    return False


def loads(data: bytes) -> Any:
    """orjson.loads(data), raising orjson.JSONDecodeError (a ValueError) as it would."""
    if len(data) > _LARGE:
        return _orjson().loads(data)
    try:
        text = data.decode("utf-8")  # strict: refuses encoded surrogates, as orjson does
        if not _surrogate_escape(text):
            value = _std_loads(text)
            if not _deeper_than(value, _DEPTH):
                return value
    except (ValueError, RecursionError, StopIteration, SystemError):
        # Not plain JSON: orjson gives the verdict and its exact message. (SystemError: the C
        # scanner reports some errors through json.decoder, which the hot path never imports.)
        pass
    return _orjson().loads(data)


def _plain(value: Any) -> bool:
    """Whether the standard library writes this exactly as orjson does (str keys, floats
    without an exponent, well within orjson's nesting limit of 255 levels), and fast enough
    (under a megabyte of text)."""
    stack = [(value, 0)]
    size = 0
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        size += 16  # every value counts, so a flood of tiny ones goes to orjson's C walk too
        if size > _LARGE:
            return False
        if kind is str:
            size += len(item)
            if size > _LARGE:
                return False
        elif kind is dict or kind is list or kind is tuple:
            if depth >= _DEPTH:
                return False
            if kind is dict:
                if any(type(key) is not str for key in item):
                    return False
                item = item.values()
            stack.extend((child, depth + 1) for child in item)
        elif kind is float:
            # Both print the shortest round-trip digits; only the exponent forms differ.
            if not (item == 0 or 1e-4 <= abs(item) < 1e16):
                return False
        elif kind not in _PLAIN or (kind is int and item not in _INT_RANGE):
            return False
    return True


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """orjson.dumps(value) (with OPT_SORT_KEYS when asked), compact UTF-8 bytes."""
    if _plain(value):
        try:
            return "".join(_ENCODE[sort_keys](value, 0)).encode()
        except UnicodeEncodeError:
            pass  # a lone surrogate: orjson raises its own error below
    orjson = _orjson()
    written: bytes = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    return written
