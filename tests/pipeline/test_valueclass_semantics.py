"""A record behaves as a dataclass, rule by rule (`record` here is the test adapter making one
from a plain class): the dataclass is the oracle, and where the two differ by design (the error
messages name the class, methods are shared, subclasses are records) the expected result is
written out. Every class is declared inside its test, so that building it runs while mutation
testing has a mutant switched on."""

from __future__ import annotations

import dataclasses
import runpy
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from bridge.pipeline import valueclass as record_module
from bridge.pipeline.valueclass import MISSING, Record, RecordMeta, field, replace

from .valueclass_adapter import record

Declare = Callable[[Any, Any], type[Any]]


def both(declare: Declare) -> tuple[type[Any], type[Any]]:
    """The class `declare` makes, as a dataclass and as a record."""
    return declare(dataclasses.dataclass, dataclasses.field), declare(record, field)


def error(compute: Callable[[], object]) -> tuple[type[BaseException], str] | None:
    try:
        compute()
    except Exception as problem:
        return type(problem), str(problem)
    return None


def fields_of(cls: type[Any]) -> list[tuple[Any, ...]]:
    """Each field as (name, annotation, default, factory), in dataclasses' terms."""
    if isinstance(cls, RecordMeta):
        return [
            (name, annotation, dataclasses.MISSING if default is MISSING else default, made)
            for name, annotation, default, factory in cls.__record_fields__  # type: ignore[attr-defined]
            for made in [factory or dataclasses.MISSING]
        ]
    return [(f.name, f.type, f.default, f.default_factory) for f in dataclasses.fields(cls)]


def test_no_default_a_field_can_hold_reads_as_missing() -> None:
    """MISSING and the field marker are bare objects: a default that looks like either (the
    word, a triple, a tuple holding a field's parts) is still that default."""

    class Odd(Record, frozen=True):
        word: str = "MISSING"
        triple: tuple[object, ...] = (None, 1, None)
        made: tuple[object, ...] = field(default=(1, 2, 3))

    assert Odd() == Odd("MISSING", (None, 1, None), (1, 2, 3))
    assert all(default is not MISSING for _n, _a, default, _f in Odd.__record_fields__)  # type: ignore[attr-defined]


def test_a_field_takes_a_default_or_a_factory_not_both() -> None:
    assert error(lambda: field(default=1, default_factory=list)) == error(
        lambda: dataclasses.field(default=1, default_factory=list)  # type: ignore[call-overload]
    )
    assert error(lambda: field(default=1, default_factory=list)) == (
        ValueError,
        "cannot specify both default and default_factory",
    )

    @record()
    class Value:
        a: int = field(default=5)
        b: list[int] = field(default_factory=lambda: [7])

    assert (Value().a, Value().b) == (5, [7])


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("slots", [False, True])
def test_inherited_fields_come_first(frozen: bool, slots: bool) -> None:
    def declare(decorator: Any, make_field: Any) -> type[Any]:
        @decorator(frozen=frozen, slots=slots)
        class Base:
            a: int
            b: str = "b"

        @decorator(frozen=frozen, slots=slots)
        class Middle(Base):
            c: int = 3

        @decorator(frozen=frozen, slots=slots)
        class Child(Middle):
            b: str = "child b"  # redeclared: keeps its place, takes the new default
            d: list[int] = make_field(default_factory=list)

        return Child

    dc, rc = both(declare)
    assert repr(rc(1)) == repr(dc(1))
    assert rc.__match_args__ == dc.__match_args__ == ("a", "b", "c", "d")
    assert fields_of(rc) == fields_of(dc)
    if slots:
        assert rc.__slots__ == dc.__slots__ == ("d",)  # the inherited ones are not repeated


@pytest.mark.parametrize("frozen", [False, True])
def test_a_subclass_declaring_no_field_has_its_parents(frozen: bool) -> None:
    def declare(decorator: Any, _make_field: Any) -> type[Any]:
        @decorator(frozen=frozen)
        class Base:
            a: int
            b: str = "b"

        @decorator(frozen=frozen)
        class Child(Base):
            def shout(self) -> str:
                return self.b.upper()

        return Child

    dc, rc = both(declare)
    assert repr(rc(1)) == repr(dc(1))
    assert rc(1, "x").shout() == "X"
    assert fields_of(rc) == fields_of(dc)


def test_class_variables_are_not_fields() -> None:
    def declare(decorator: Any, make_field: Any) -> type[Any]:
        # Annotations as objects (typing.ClassVar), not the strings this module's are.
        namespace = {
            "__annotations__": {"kind": ClassVar[str], "a": int, "b": int},
            "kind": "shared",
            "b": 2,
        }
        return decorator()(type("Value", (), namespace))  # type: ignore[no-any-return]

    dc, rc = both(declare)
    assert repr(rc(1)) == repr(dc(1)) == "Value(a=1, b=2)"
    assert rc.kind == "shared"
    assert fields_of(rc) == fields_of(dc)

    @record()
    class Strings:
        kind: ClassVar[str] = "shared"
        other: typing.ClassVar[int] = 3
        a: int

    assert repr(Strings(1)) == "test_class_variables_are_not_fields.<locals>.Strings(a=1)"


def test_a_mutable_default_is_refused_with_the_dataclass_message() -> None:
    def declare(decorator: Any, _make_field: Any) -> Callable[[], object]:
        def define() -> object:
            @decorator()
            class Bad:
                a: int
                items: dict[str, int] = {}  # noqa: RUF012

            return Bad

        return define

    dc_error, rc_error = error(declare(dataclasses.dataclass, None)), error(declare(record, None))
    assert rc_error == dc_error
    assert rc_error == (
        ValueError,
        "mutable default <class 'dict'> for field items is not allowed: use default_factory",
    )


@pytest.mark.parametrize("default", ["value", "factory", "inherited"])
def test_a_field_without_default_cannot_follow_one_with(default: str) -> None:
    def declare(decorator: Any, make_field: Any) -> Callable[[], object]:
        def define() -> object:
            made = (
                make_field(default=1) if default != "factory" else make_field(default_factory=int)
            )
            if default == "inherited":  # the default comes from a base

                @decorator()
                class Base:
                    a: int
                    b: int = made

                @decorator()
                class Child(Base):
                    c: int

                return Child

            @decorator()
            class Bad:
                a: int
                b: int = made
                c: int

            return Bad

        return define

    rc_error = error(declare(record, field))
    assert rc_error == error(declare(dataclasses.dataclass, dataclasses.field))
    assert rc_error == (TypeError, "non-default argument 'c' follows default argument")


def test_defaults_after_defaults_and_required_before_them_are_fine() -> None:
    @record()
    class Value:
        a: int
        b: int
        c: int = 3
        d: list[int] = field(default_factory=list)
        e: int = 5

    assert (Value(1, 2).c, Value(1, 2).d, Value(1, 2).e) == (3, [], 5)


@pytest.mark.parametrize(("frozen", "slots"), [(False, False), (True, True), (True, False)])
def test_the_fields_are_the_dataclasss(frozen: bool, slots: bool) -> None:
    def declare(decorator: Any, make_field: Any) -> type[Any]:
        @decorator(frozen=frozen, slots=slots)
        class Value:
            a: int
            b: str = "x"
            c: list[int] = make_field(default_factory=list)
            d: tuple[int, ...] = make_field(default=(1,))

        return Value

    dc, rc = both(declare)
    assert fields_of(rc) == fields_of(dc)


def test_a_mutable_record_sets_its_fields_through_its_own_setattr() -> None:
    def declare(decorator: Any, _make_field: Any) -> type[Any]:
        @decorator()
        class Value:
            a: int
            b: int = 0

            def __setattr__(self, name: str, value: Any) -> None:
                object.__setattr__(self, name, value * 10)

        return Value

    dc, rc = both(declare)
    assert repr(rc(1, 2)) == repr(dc(1, 2))
    assert (rc(1, 2).a, rc(1).a, rc(a=3).a) == (10, 10, 30)


@pytest.mark.parametrize(("frozen", "slots"), [(False, False), (True, True)])
def test_every_way_of_passing_arguments(frozen: bool, slots: bool) -> None:
    def declare(decorator: Any, make_field: Any) -> type[Any]:
        @decorator(frozen=frozen, slots=slots)
        class Value:
            a: int
            b: str = "b"
            c: list[int] = make_field(default_factory=lambda: [0])

        return Value

    dc, rc = both(declare)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((1,), {}),
        ((1, "x"), {}),
        ((1, "x", [2]), {}),
        ((), {"a": 1}),
        ((), {"c": [3], "a": 1}),
        ((1,), {"c": [4]}),
        ((1, "y"), {"c": [5]}),
        ((), {"b": "z", "a": 2}),
    ]
    for args, kwargs in calls:
        assert repr(rc(*args, **kwargs)) == repr(dc(*args, **kwargs)), (args, kwargs)


def test_wrong_arguments_get_the_dataclass_messages() -> None:
    @record(frozen=True, slots=True)
    class Value:
        a: int
        b: str

    loose: Any = Value  # called wrongly on purpose
    assert error(lambda: loose(1, "x", 3)) == (
        TypeError,
        "Value.__init__() takes 3 positional arguments but 4 were given",
    )
    assert error(lambda: loose(1, "x", z=3)) == (
        TypeError,
        "Value.__init__() got an unexpected keyword argument 'z'",
    )
    assert error(lambda: loose(1, "x", a=2)) == (
        TypeError,
        "Value.__init__() got multiple values for argument 'a'",
    )
    assert error(lambda: loose(1)) == (
        TypeError,
        "Value.__init__() missing 1 required positional argument: 'b'",
    )
    assert error(lambda: loose(b="x")) == (
        TypeError,
        "Value.__init__() missing 1 required positional argument: 'a'",
    )


def test_repr_equality_and_hash_are_the_dataclasss() -> None:
    def declare(decorator: Any, _make_field: Any) -> type[Any]:
        @decorator(frozen=True, slots=True)
        class Value:
            a: int
            b: str = "b"

        return Value

    dc, rc = both(declare)
    assert repr(rc(1, "x")) == repr(dc(1, "x"))
    # Unlike dataclasses, nothing is generated per class: every record shares one function each.
    _dc, other = both(declare)
    assert (rc.__repr__, rc.__init__, rc.__eq__) == (other.__repr__, other.__init__, other.__eq__)
    assert (rc.__hash__, rc.__setattr__) == (other.__hash__, other.__setattr__)
    assert hash(rc(1, "x")) == hash(dc(1, "x")) == hash((1, "x"))
    assert rc(1, "x") == rc(1, "x") and rc(1, "x") != rc(1, "y") and rc(1, "x") != rc(2, "x")
    assert rc(1, "x").__eq__((1, "x")) is NotImplemented
    assert rc(1, "x") != dc(1, "x")

    class Sub(rc):  # type: ignore[misc,valid-type]
        __slots__ = ()

    assert rc(1, "x") != Sub(1, "x")  # another class is never equal, as with dataclasses


@pytest.mark.parametrize("slots", [False, True])
def test_frozen_fields_cannot_be_assigned_or_deleted(slots: bool) -> None:
    def declare(decorator: Any, _make_field: Any) -> type[Any]:
        @decorator(frozen=True, slots=slots)
        class Value:
            a: int

        return Value

    dc, rc = both(declare)
    value = rc(1)
    for action in (lambda: setattr(value, "a", 2), lambda: setattr(value, "other", 2)):
        problem = error(action)
        assert problem is not None and problem[0] is dataclasses.FrozenInstanceError
    assert error(lambda: setattr(value, "a", 2)) == error(lambda: setattr(dc(1), "a", 2))
    assert str(error(lambda: setattr(value, "a", 2))) == str(
        (dataclasses.FrozenInstanceError, "cannot assign to field 'a'")
    )
    assert error(lambda: delattr(value, "a")) == error(lambda: delattr(dc(1), "a"))
    # Not a field, not even an attribute: still refused as frozen (the slotted dataclass
    # fails there with a TypeError of its own, a CPython quirk not worth copying).
    if not slots:
        assert error(lambda: delattr(value, "other")) == error(lambda: delattr(dc(1), "other"))
    assert error(lambda: delattr(value, "other")) == (
        dataclasses.FrozenInstanceError,
        "cannot delete field 'other'",
    )
    assert str(error(lambda: delattr(value, "a"))) == str(
        (dataclasses.FrozenInstanceError, "cannot delete field 'a'")
    )
    assert value.a == 1


@pytest.mark.parametrize(("frozen", "slots"), [(False, False), (True, True), (True, False)])
def test_a_subclass_of_a_record_is_a_record_with_its_settings(frozen: bool, slots: bool) -> None:
    # Unlike dataclasses (a plain subclass is no dataclass), as msgspec.Struct and pydantic.
    class Value(Record, frozen=frozen, slots=slots):
        a: int

    class Sub(Value):
        b: int = 2

    assert (
        repr(Sub(1))
        == "test_a_subclass_of_a_record_is_a_record_with_its_settings.<locals>.Sub(a=1, b=2)"
    )
    assert (Sub.__record_frozen__, Sub.__record_slotted__) == (frozen, slots)
    assert Sub.__match_args__ == ("a", "b") and Sub(1) != Value(1)
    value = Sub(1)
    if frozen:
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'b'"):
            value.b = 3
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'a'"):
            del value.a
        assert hash(value) == hash((1, 2))
    else:
        value.b = 3
        assert value == Sub(1, 3) and Sub.__hash__ is None
    assert hasattr(value, "__dict__") is not slots
    if slots:
        assert Sub.__slots__ == ("b",)  # `a` is the parent's slot


def test_a_record_cannot_change_its_parents_frozenness() -> None:
    class Frozen(Record, frozen=True):
        a: int

    class Mutable(Record):
        a: int

    with pytest.raises(
        TypeError, match="cannot inherit non-frozen record Thawed from a frozen one"
    ):

        class Thawed(Frozen, frozen=False):
            pass

    with pytest.raises(TypeError, match="cannot inherit frozen record Hard from a non-frozen one"):

        class Hard(Mutable, frozen=True):
            pass


def test_a_non_record_base_gives_its_methods_and_slots() -> None:
    class Named:
        __slots__ = ("name",)

        def shout(self) -> str:
            return self.name.upper()

    class Value(Record, Named, frozen=True, slots=True):
        name: str
        a: int = 1

    assert Value.__slots__ == ("a",)  # `name` is a slot of the base already
    value = Value("x")
    assert value.shout() == "X" and repr(value) == (
        "test_a_non_record_base_gives_its_methods_and_slots.<locals>.Value(name='x', a=1)"
    )


def hashing(cls: type[Any]) -> Callable[[], int]:
    return lambda: hash(cls(5))


def test_hashing_follows_the_dataclass_rules() -> None:
    def declare(decorator: Any, _make_field: Any) -> list[type[Any]]:
        @decorator(frozen=True)
        class Generated:
            a: int

        @decorator(frozen=True)
        class Own:
            a: int

            def __hash__(self) -> int:
                return 7

        @decorator(frozen=True)
        class OwnEq:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

        @decorator(frozen=True)
        class OwnBoth:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

            def __hash__(self) -> int:
                return 9

        @decorator(frozen=True)
        class Unhashable:
            a: int
            __hash__ = None  # type: ignore[assignment]

        @decorator()
        class Mutable:
            a: int

        @decorator()
        class MutableOwn:
            a: int

            def __hash__(self) -> int:
                return 8

        return [Generated, Own, OwnEq, OwnBoth, Unhashable, Mutable, MutableOwn]

    dcs = declare(dataclasses.dataclass, None)
    rcs = declare(record, None)
    for dc, rc in zip(dcs, rcs, strict=True):
        assert error(hashing(dc)) == error(hashing(rc)), rc
        if rc.__hash__ is not None:
            assert hash(rc(5)) == hash(dc(5))
    assert [rc.__hash__ is None for rc in rcs] == [False, False, False, False, True, True, False]
    assert [hash(rc(5)) for rc in rcs if rc.__hash__ is not None] == [
        hash((5,)),
        7,
        hash((5,)),
        9,
        8,
    ]
    assert rcs[2](1) == rcs[2](2)  # its own __eq__ is kept


def test_a_frozen_record_keeps_no_setattr_of_its_own() -> None:
    for name in ("__setattr__", "__delattr__"):
        namespace = {"__annotations__": {"a": "int"}, name: lambda *_args: None}
        with pytest.raises(TypeError) as caught:
            record(frozen=True)(type("Value", (), namespace))
        assert str(caught.value) == f"cannot overwrite attribute {name} in class Value"


def test_own_methods_and_match_args_are_kept() -> None:
    def declare(decorator: Any, _make_field: Any) -> type[Any]:
        @decorator()
        class Value:
            __match_args__ = ("b",)
            a: int
            b: int = 2

            def __repr__(self) -> str:
                return "mine"

        return Value

    dc, rc = both(declare)
    assert rc.__match_args__ == dc.__match_args__ == ("b",)
    assert repr(rc(1)) == repr(dc(1)) == "mine"
    assert rc(1) == rc(1)  # the generated __eq__ beside the kept __repr__


@pytest.mark.parametrize("slots", [False, True])
def test_defaults_as_class_attributes(slots: bool) -> None:
    def declare(decorator: Any, make_field: Any) -> type[Any]:
        @decorator(slots=slots)
        class Value:
            a: int
            b: str = "b"
            c: list[int] = make_field(default_factory=list)
            d: int = make_field(default=4)

        return Value

    dc, rc = both(declare)
    for name in ("a", "b", "c", "d"):
        kind = type(rc.__dict__.get(name))
        assert kind is type(dc.__dict__.get(name)), name
        if not slots:
            assert getattr(rc, name, "absent") == getattr(dc, name, "absent"), name
    if slots:
        assert isinstance(rc.__dict__["b"], types.MemberDescriptorType)
        assert not hasattr(rc(1), "__dict__") and not hasattr(rc(1), "__weakref__")
    else:
        assert rc.b == "b" and rc.d == 4 and not hasattr(rc, "c")


def test_a_record_may_have_a_metaclass_of_its_own() -> None:
    class Meta(RecordMeta):
        pass

    class Value(Record, metaclass=Meta, frozen=True):
        a: int

    assert type(Value) is Meta
    assert Value.__name__ == "Value"
    assert Value.__qualname__ == "test_a_record_may_have_a_metaclass_of_its_own.<locals>.Value"
    assert Value.__record_names__ == ("a",) and Value(1) == Value(1)


def test_replace_changes_only_what_it_is_given() -> None:
    @record(frozen=True, slots=True)
    class Value:
        a: int
        b: str = "b"
        c: list[int] = field(default_factory=list)

    value = Value(1, "x", [2])
    assert replace(value) == value
    assert replace(value, b="y") == Value(1, "y", [2])
    assert replace(value, a=3, c=[]) == Value(3, "x", [])
    assert replace(value, a=3).c is value.c  # not a fresh default
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        replace(value, z=1)


def test_a_record_is_an_instance_of_record() -> None:
    class Value(Record, frozen=True):
        a: int

    assert isinstance(Value(1), Record) and issubclass(Value, Record)
    assert Value.__mro__ == (Value, Record, object)


def test_a_redeclared_field_keeps_its_place_and_takes_its_default() -> None:
    class Base(Record, frozen=True):
        a: int
        b: int = 2

    class Redeclared(Base):  # a field given a default in place keeps the order valid
        a: int = 1
        c: int = 3

    assert repr(Redeclared()).endswith("Redeclared(a=1, b=2, c=3)")


def test_a_base_that_is_no_record_does_not_hide_the_record_bases() -> None:
    class Mixin:
        __slots__ = ()

        def shout(self) -> str:
            return str(self).upper()

    class Base(Record, frozen=True, slots=True):
        a: int

    class Child(Base, Mixin):
        b: int = 2

    assert Child.__record_names__ == ("a", "b") and Child.__record_frozen__
    assert Child(1).shout().endswith("CHILD(A=1, B=2)")


def test_a_record_cannot_inherit_from_frozen_and_mutable_records() -> None:
    class Frozen(Record, frozen=True):
        a: int

    class Mutable(Record):
        b: int

    for bases in ((Frozen, Mutable), (Mutable, Frozen)):
        with pytest.raises(TypeError, match="record Both cannot inherit from frozen and non-"):
            RecordMeta("Both", bases, {"__qualname__": "Both"})


def test_own_init_and_slots_are_kept() -> None:
    class Value(Record, slots=True):
        __slots__ = ("a", "note")
        a: int

        def __init__(self, a: int) -> None:
            self.a, self.note = a * 2, "mine"

    value = Value(2)
    assert (value.a, value.note) == (4, "mine")  # as dataclasses: its own __init__ stays
    assert Value.__slots__ == ("a", "note")


def test_the_base_is_made_the_same_way_when_the_module_runs_again() -> None:
    """`Record` itself is made when the module is imported, which mutation testing cannot
    reach; running the module again makes it under the test's eyes."""
    fresh = runpy.run_path(record_module.__file__, run_name="record_again")
    base, meta = fresh["Record"], fresh["RecordMeta"]
    assert type(base) is meta and base.__bases__ == (object,)
    assert base.__slots__ == () and base.__dict__["__record__"] is True
    assert not {"__init__", "__repr__", "__eq__", "__setattr__"} & set(base.__dict__)
    assert "__hash__" not in base.__dict__  # (a made record says its own)

    class Value(base, frozen=True):  # type: ignore[misc,valid-type]
        a: int

    assert Value(1) == Value(1) and hash(Value(1)) == hash((1,))


def test_a_post_init_is_refused_not_silently_skipped() -> None:
    """Records do not call `__post_init__` (no record needs one): defining it is an error at
    class creation, not a check that never runs."""
    with pytest.raises(TypeError, match="record Checked defines __post_init__"):

        class Checked(Record, frozen=True):
            a: int

            def __post_init__(self) -> None:
                raise AssertionError("never called")
