"""A record (cheap to define) behaves as a dataclass for everything ccbridge's values use
(`record` here is the test adapter making one from a plain class)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline.valueclass import field, replace

from .valueclass_adapter import record


def pair(frozen: bool, slots: bool) -> tuple[type[Any], type[Any]]:
    """The same class declared twice: once as a dataclass, once as a record."""

    def declare(decorator: Any, make_field: Any) -> type[Any]:
        @decorator(frozen=frozen, slots=slots)
        class Value:
            a: int
            b: str = ""
            c: tuple[int, ...] = make_field(default=())
            d: list[int] = make_field(default_factory=list)

        return Value

    return declare(dataclasses.dataclass, dataclasses.field), declare(record, field)


def outcome(compute: Any) -> tuple[str, Any]:
    try:
        return "ok", compute()
    except TypeError as error:
        return "error", str(error)


KINDS = [(True, True), (True, False), (False, False), (False, True)]
values = st.tuples(st.integers(), st.text(max_size=5), st.tuples(st.integers()))


@pytest.mark.parametrize(("frozen", "slots"), KINDS)
@given(first=values, second=values)
def test_a_record_behaves_as_the_dataclass(
    frozen: bool, slots: bool, first: tuple[Any, ...], second: tuple[Any, ...]
) -> None:
    dc, rc = pair(frozen, slots)
    assert repr(rc(*first)) == repr(dc(*first))
    assert repr(rc(first[0], c=first[2])) == repr(dc(first[0], c=first[2]))
    assert (rc(*first) == rc(*second)) == (dc(*first) == dc(*second))
    assert rc(*first) != dc(*first)  # another class is never equal, as with dataclasses
    assert rc.__match_args__ == dc.__match_args__
    assert hasattr(rc(*first), "__dict__") == hasattr(dc(*first), "__dict__")
    assert outcome(lambda: hash(rc(*first))) == outcome(lambda: hash(dc(*first)))
    assert outcome(lambda: hash(rc(*first[:1], d=()))) == outcome(
        lambda: hash(dc(*first[:1], d=()))
    )
    if frozen:
        with pytest.raises(dataclasses.FrozenInstanceError):
            rc(*first).a = 1
    else:
        assert rc.__hash__ is None
    changed = replace(rc(*first), b="changed")
    assert repr(changed) == repr(dataclasses.replace(dc(*first), b="changed"))
    assert [name for name, *_ in rc.__record_fields__] == [f.name for f in dataclasses.fields(dc)]


@pytest.mark.parametrize(("frozen", "slots"), KINDS)
def test_wrong_arguments_fail_as_with_dataclasses(frozen: bool, slots: bool) -> None:
    dc, rc = pair(frozen, slots)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {}),
        ((1, "", (), [], 5), {}),
        ((1,), {"e": 1}),
        ((1,), {"a": 2}),
    ]
    for args, kwargs in calls:
        with pytest.raises(TypeError):
            dc(*args, **kwargs)
        with pytest.raises(TypeError):
            rc(*args, **kwargs)


def test_factories_give_every_instance_its_own_value() -> None:
    _dc, rc = pair(False, False)
    first, second = rc(1), rc(2)
    first.d.append(1)
    assert second.d == []


def test_a_mutable_default_is_refused_as_by_dataclasses() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @record()
        class Bad:
            items: list[int] = []  # noqa: RUF012
