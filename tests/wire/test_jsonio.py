"""bridge.wire.jsonio reads and writes what the standard library's `json` does (its C scanner and
encoder, without importing `json`), strict JSON on both sides: `json` is the oracle for every
value and byte, and the refusals are written out."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.wire import jsonio

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)
json_ish = st.text(alphabet='[]{}",:0123456789.eE+-\\ud8aDCntrufls ', max_size=40).map(str.encode)


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


def has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(map(has_lone_surrogate, value)) or any(map(has_lone_surrogate, value.values()))
    if isinstance(value, list):
        return any(map(has_lone_surrogate, value))
    return False


def strict(text: str) -> Any:
    """The oracle: `json.loads` with strict JSON's refusals (constants, overflowing numbers,
    lone surrogates), or the JSONDecodeError it raises."""

    def refuse(found: str) -> Any:
        raise json.JSONDecodeError(f"not JSON: {found}", text, 0)

    def number(found: str) -> float:
        value = float(found)
        if math.isinf(value):
            raise json.JSONDecodeError(f"number out of range: {found}", text, 0)
        return value

    value = json.loads(text, parse_constant=refuse, parse_float=number)
    if has_lone_surrogate(value):
        raise json.JSONDecodeError("lone surrogate", text, 0)
    return value


def outcome(compute: Any) -> tuple[str, Any]:
    """A value with its type, or the error's type: what a caller can observe."""
    try:
        value = compute()
    except json.JSONDecodeError:
        return "error", "JSONDecodeError"
    return "ok", (repr(value), type(value))


@settings(max_examples=500)
@given(documents)
def test_dumps_writes_what_json_writes(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        written = expected.encode()
    except UnicodeEncodeError:  # a lone surrogate: UTF-8 cannot hold it
        with pytest.raises(ValueError, match="lone surrogate"):
            jsonio.dumps(value)
        return
    assert jsonio.dumps(value) == written
    assert jsonio.dumps(value, sort_keys=True) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True
    ).encode("utf-8")


@settings(max_examples=500)
@given(documents.filter(lambda value: not has_lone_surrogate(value)))
def test_what_is_written_reads_back_the_same(value: Any) -> None:
    assert jsonio.loads(jsonio.dumps(value)) == value


@settings(max_examples=500)
@given(st.binary(max_size=40) | json_ish | documents.map(lambda value: json.dumps(value).encode()))
def test_loads_reads_what_strict_json_reads(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        with pytest.raises(jsonio.DecodeError):
            jsonio.loads(data)
        return
    assert outcome(lambda: jsonio.loads(data)) == outcome(lambda: strict(text))


REFUSED = [
    b"NaN",
    b"[Infinity]",
    b"-Infinity",
    b"1e309",  # overflows a double
    b"-1e400",
    b'"\\ud800"',  # lone surrogates: UTF-8 cannot write them back into the audit record
    b'"\\uDBFF"',
    b'"x\\u00e9\\udc00"',
    b'{"\\ud800": 1}',  # in a key too
    b'"\xed\xa0\x80"',  # an encoded surrogate is not UTF-8
    b'"\xff"',
    b'"a\x01b"',  # a control character inside a string
    b"{}\x0c",  # a form feed is not JSON whitespace
    b"\x0c{}",
    b"{} x",
    b"",
    b"   ",
    b"[" * 5000 + b"]" * 5000,  # past the interpreter's recursion limit
    b"1" * 5000,  # past the longest integer text Python reads
]


@pytest.mark.parametrize("data", REFUSED, ids=range(len(REFUSED)))
def test_what_strict_json_refuses_is_a_decode_error(module: ModuleType, data: bytes) -> None:
    with pytest.raises(module.DecodeError) as caught:
        module.loads(data)
    assert caught.value.lineno >= 1 and caught.value.colno >= 1  # the event reader names them


READ = [
    (b'"\\uD83D\\uDE00"', "\U0001f600"),  # a surrogate pair is one character
    (b'"\\\\ud800"', "\\ud800"),  # an escaped backslash, then letters: no surrogate
    (b'"\\\\u\\u00e9"', "\\u\u00e9"),
    (b"18446744073709551616", 2**64),  # integers of any size
    (b"-9223372036854775809", -(2**63) - 1),
    (b"1e308", 1e308),
    (b" \t\n\r{} \t\n\r", {}),
    (b"[" * 200 + b"]" * 200, json.loads("[" * 200 + "]" * 200)),
]


@pytest.mark.parametrize(("data", "value"), READ, ids=range(len(READ)))
def test_what_strict_json_holds_is_read(module: ModuleType, data: bytes, value: Any) -> None:
    read = module.loads(data)
    assert read == value and type(read) is type(value)


@pytest.mark.parametrize(
    "value", [math.nan, math.inf, [-math.inf], {"a": object()}, {(1, 2): 1}, {1j}], ids=range(6)
)
def test_what_json_cannot_hold_is_not_written(module: ModuleType, value: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        module.dumps(value)


def test_sorting_is_by_key(module: ModuleType) -> None:
    value = {"b": 1, "a": {"d": 2, "c": 3}}
    assert module.dumps(value) == b'{"b":1,"a":{"d":2,"c":3}}'
    assert module.dumps(value, sort_keys=True) == b'{"a":{"c":3,"d":2},"b":1}'


def test_decode_error_is_the_json_modules() -> None:
    assert jsonio.DecodeError is json.JSONDecodeError
    with pytest.raises(AttributeError) as caught:
        _ = jsonio.Nothing
    assert str(caught.value) == "module 'bridge.wire.jsonio' has no attribute 'Nothing'"


def test_a_plain_round_trip_imports_neither_json_nor_orjson() -> None:
    code = (
        "import sys; from bridge.wire import jsonio; "
        'v = jsonio.loads(b\'{"a": [1, 1.5, "\\\\u00e9", null]}\'); '
        "jsonio.dumps(v, sort_keys=True); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('json', 'orjson')))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(Path(jsonio.__file__).parents[2])},
    )
    assert done.stdout.strip() == "[]"
    failed = subprocess.run(
        [sys.executable, "-S", "-c", code.replace("null]}", "null]")],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(Path(jsonio.__file__).parents[2])},
    )
    assert "JSONDecodeError" in failed.stderr  # the control: an error does import json
