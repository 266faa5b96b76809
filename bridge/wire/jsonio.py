"""JSON in and out with orjson's exact results, at the standard library's import cost.

Importing orjson costs a hook call more than the rest of ccbridge together: it imports
`dataclasses`, `inspect`, `uuid`, `datetime` and `json` to recognise those types. So the
common case goes through the standard library's parser and encoder, limited to the inputs
where both give byte-for-byte the same result, and anything else (an error to report, a float
to print with an exponent, a lone surrogate, NaN, an integer past 64 bits, deep nesting, or
a document past a megabyte, where orjson's speed repays its import) is handed to orjson
itself, imported only then. Every value and every error message is orjson's.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

DecodeError = json.JSONDecodeError  # orjson.JSONDecodeError is a subclass: catch this one
_INT_RANGE = range(-(1 << 63), 1 << 64)  # what orjson reads as an int; larger become floats
_PLAIN = (str, int, bool, type(None))
# Past a megabyte orjson's speed (about 4x) repays importing it.
_LARGE = 1 << 20
# Containers nested deeper than this go to orjson, which refuses to write past 254 levels and to
# read past 1024 (the standard library's limit is the interpreter's recursion limit).
_DEPTH = 200


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
    if "\\u" not in text:
        return False
    import re  # already loaded in practice: the console script imports it

    return re.search(r"\\u[dD][89a-fA-F]", text) is not None


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
            value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_refuse)
            if not _deeper_than(value, _DEPTH):
                return value
    except (ValueError, RecursionError):
        pass  # not plain JSON: orjson gives the verdict and its exact message
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
            return json.dumps(
                value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys
            ).encode()
        except UnicodeEncodeError:
            pass  # a lone surrogate: orjson raises its own error below
    orjson = _orjson()
    written: bytes = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    return written
