"""bridge.wire.jsonio gives orjson's exact bytes, values and errors, without importing orjson
on the common path."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.wire import jsonio

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
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


def outcome(compute: Any) -> tuple[str, Any]:
    """A value, or the error's type and message: what a caller can observe."""
    try:
        return "ok", repr(compute())
    except Exception as error:
        return "error", f"{type(error).__name__}: {error}"


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": [value]}
    return value


@settings(max_examples=500)
@given(documents)
def test_dumps_writes_what_orjson_writes(value: Any) -> None:
    assert outcome(lambda: jsonio.dumps(value)) == outcome(lambda: orjson.dumps(value))
    assert outcome(lambda: jsonio.dumps(value, sort_keys=True)) == outcome(
        lambda: orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    )


@settings(max_examples=500)
@given(st.binary(max_size=40) | json_ish | documents.map(lambda value: json.dumps(value).encode()))
def test_loads_reads_what_orjson_reads(data: bytes) -> None:
    assert outcome(lambda: jsonio.loads(data)) == outcome(lambda: orjson.loads(data))


@pytest.mark.parametrize(
    "data",
    [
        b"1e400",
        b"18446744073709551616",
        b"-9223372036854775809",
        b'"\\ud800"',
        b'"\\ud83d\\ude00"',
        b'"\xed\xa0\x80"',
        b"\xef\xbb\xbf{}",
        b"NaN",
        b"[-Infinity]",
        b"[" * 1024 + b"]" * 1024,
        b"[" * 1025 + b"]" * 1025,
        b'{"a":1,"a":2}',
        b'{"a": 1.5e-7}',
    ],
)
def test_the_edges_where_the_standard_library_differs(data: bytes) -> None:
    assert outcome(lambda: jsonio.loads(data)) == outcome(lambda: orjson.loads(data))


@pytest.mark.parametrize("depth", [100, 126, 127, 128, 200])
def test_deep_values_are_written_or_refused_as_orjson_does(depth: int) -> None:
    value = nested(depth)
    assert outcome(lambda: jsonio.dumps(value)) == outcome(lambda: orjson.dumps(value))


def test_errors_are_orjsons_and_json_decode_errors() -> None:
    with pytest.raises(jsonio.DecodeError) as caught:
        jsonio.loads(b'{"a": ')
    assert isinstance(caught.value, orjson.JSONDecodeError)


def test_large_documents_give_the_same_result_on_either_path() -> None:
    for size in ((1 << 20) - 100, (1 << 20) + 100):
        value = {"content": "\u00e9\x1b[0m" * (size // 5), "n": [1, 2.5, None]}
        data = orjson.dumps(value)
        assert jsonio.dumps(value) == data
        assert jsonio.loads(data) == orjson.loads(data)
