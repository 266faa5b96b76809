"""bridge.wire.jsonio at its edges: which inputs the standard library's C scanner and encoder
handle (the hook call's path, which must not import orjson) and which are handed to orjson, with
orjson's exact result either way. orjson is the oracle for every value and error."""

from __future__ import annotations

import importlib.util
import math
import re
import zlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import orjson
import pytest

from bridge.wire import jsonio

MB = 1 << 20


def fresh() -> ModuleType:
    """jsonio imported anew (not the cached module): its scanner and encoders are built by its
    import, so only a new import shows them."""
    spec = importlib.util.spec_from_file_location(jsonio.__name__, jsonio.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["imported", "fresh"])
def module(request: pytest.FixtureRequest) -> ModuleType:
    return jsonio if request.param == "imported" else fresh()


class Calls:
    """Counts the calls that reach orjson."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> ModuleType:
        self.count += 1
        return orjson


@pytest.fixture
def to_orjson(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    calls = Calls()
    monkeypatch.setattr(module, "_orjson", calls)
    yield calls


def outcome(compute: Any) -> tuple[str, Any]:
    try:
        return "ok", compute()
    except Exception as error:
        return "error", f"{type(error).__name__}: {error}"


def nested_lists(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def nested_dicts(levels: int) -> Any:
    value: Any = {}
    for _ in range(levels - 1):
        value = {"k": value}
    return value


def labels(cases: list[Any]) -> list[str]:
    """A test id per case from the case itself (stable when cases are added), cut short and
    in letters and digits only (mutmut selects tests by id)."""
    made = [
        f"{re.sub('[^A-Za-z0-9]+', '_', repr(case)[:20])}{zlib.crc32(repr(case).encode()):08x}"
        for case in cases
    ]
    assert len(set(made)) == len(made)
    return made


# --- dumps ---------------------------------------------------------------------------------

PLAIN_VALUES = [
    {"b": [1, 'x\u00e9\n"', None, True, False], "a": {"z": 1.5, "y": -2}},
    [0.0, -0.0, 1e-4, -1e-4, 0.1, math.nextafter(1e16, 0), -math.nextafter(1e16, 0)],
    [2**64 - 1, -(2**63), 0, -1],
    ("a", (1, 2), []),
    "text",
    7,
    None,
    nested_lists(200),
    nested_dicts(200),
    [0] * 65535,  # 16 bytes counted per value: 65536 values in all, exactly a megabyte
    ["a" * (MB - 32)],  # a list and a string: 32 bytes, plus the text, exactly a megabyte
    "a" * (MB - 16),
]


@pytest.mark.parametrize("value", PLAIN_VALUES, ids=labels(PLAIN_VALUES))
@pytest.mark.parametrize("sort_keys", [False, True])
def test_plain_values_are_written_without_orjson(
    module: ModuleType, to_orjson: Calls, value: Any, sort_keys: bool
) -> None:
    expected = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    assert module.dumps(value, sort_keys=sort_keys) == expected
    assert to_orjson.count == 0


HANDED_ON = [
    [1e16],  # the standard library writes 1e+16
    [-1e16],
    [math.nextafter(1e-4, 0)],  # 9.99...e-05
    [5e-324],
    [float("nan")],  # orjson writes null
    [float("inf")],
    [2**64],  # orjson refuses what does not fit 64 bits
    [-(2**63) - 1],
    {1: "a"},  # orjson refuses a key that is not a string
    {"a": {None: 1}},
    ["\ud800"],  # a lone surrogate: orjson refuses it
    [{1, 2}],  # not JSON at all
    [b"bytes"],
    [[1, 2], nested_lists(201)],
    nested_dicts(201),
    nested_lists(300),  # past orjson's own limit: its error
    [0] * 65536,  # past a megabyte counted
    ["a" * (MB - 31)],
    "a" * (MB - 15),
]


@pytest.mark.parametrize("value", HANDED_ON, ids=labels(HANDED_ON))
@pytest.mark.parametrize("sort_keys", [False, True])
def test_other_values_are_handed_to_orjson(
    module: ModuleType, to_orjson: Calls, value: Any, sort_keys: bool
) -> None:
    option = orjson.OPT_SORT_KEYS if sort_keys else None
    expected = outcome(lambda: orjson.dumps(value, option=option))
    assert outcome(lambda: module.dumps(value, sort_keys=sort_keys)) == expected
    assert to_orjson.count == 1


def test_sorting_is_by_key(module: ModuleType) -> None:
    value = {"b": 1, "a": {"d": 2, "c": 3}}
    assert module.dumps(value) == b'{"b":1,"a":{"d":2,"c":3}}'
    assert module.dumps(value, sort_keys=True) == b'{"a":{"c":3,"d":2},"b":1}'


# --- loads ---------------------------------------------------------------------------------

PLAIN_DOCUMENTS = [
    b'{"a": [1, -2, 1.5, "x\\u00e9\\ud7ff\\ue000", true, false, null]}',
    b" \t\n\r{} \t\n\r",
    b"18446744073709551615",
    b"-9223372036854775808",
    b"1e308",
    b"-1.5e-300",
    b"[" * 200 + b"]" * 200,
    b'{"k":' * 199 + b"{}" + b"}" * 199,
    b'"' + b"a" * (MB - 2) + b'"',  # exactly a megabyte
]


@pytest.mark.parametrize("data", PLAIN_DOCUMENTS, ids=labels(PLAIN_DOCUMENTS))
def test_plain_documents_are_read_without_orjson(
    module: ModuleType, to_orjson: Calls, data: bytes
) -> None:
    expected = orjson.loads(data)
    value = module.loads(data)
    assert value == expected and type(value) is type(expected)
    assert to_orjson.count == 0


HANDED_ON_DOCUMENTS = [
    b"18446744073709551616",  # orjson reads a larger integer as a float
    b"-9223372036854775809",
    b"1e309",  # overflows a double: orjson refuses it
    b"-1e309",
    b"NaN",
    b"[Infinity]",
    b"-Infinity",
    b'"\\ud800"',  # a lone surrogate escape: orjson refuses it
    b'"\\uDBFF"',
    b'"x\\u00e9\\udc00"',
    b'"\\ud800 \\u00e9"',  # the surrogate before another escape
    b'"\\u00e9 \\ud800 \\u00e9"',  # between two others
    b'"\\\\u\\ud800"',  # an escaped backslash and a u, then the surrogate
    b'"\\uD83D\\uDE00"',  # a pair: orjson reads it
    b'"a\x01b"',  # a control character inside a string
    b"{}\x0c",  # a form feed is not JSON whitespace
    b"\x0c{}",
    b"{} x",
    b'"\xff"',
    b"",
    b"[" * 201 + b"]" * 201,
    b"[" + b"[" * 200 + b"]" * 200 + b",1]",  # the deep item before a plain one
    b'{"k":' * 200 + b"{}" + b"}" * 200,
    b"[" * 5000 + b"]" * 5000,
    b'"' + b"a" * (MB - 1) + b'"',  # one byte past a megabyte
]


@pytest.mark.parametrize("data", HANDED_ON_DOCUMENTS, ids=labels(HANDED_ON_DOCUMENTS))
def test_other_documents_are_handed_to_orjson(
    module: ModuleType, to_orjson: Calls, data: bytes
) -> None:
    expected = outcome(lambda: orjson.loads(data))
    assert outcome(lambda: module.loads(data)) == expected
    assert to_orjson.count == 1


def test_decode_error_is_the_json_modules() -> None:
    import json

    assert jsonio.DecodeError is json.JSONDecodeError
    with pytest.raises(AttributeError) as caught:
        _ = jsonio.Nothing
    assert str(caught.value) == "module 'bridge.wire.jsonio' has no attribute 'Nothing'"


def test_orjson_is_what_it_imports_when_needed() -> None:
    assert jsonio._orjson() is orjson
