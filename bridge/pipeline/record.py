"""Value classes that cost next to nothing to define: `@record` instead of `@dataclass`.

`dataclasses` compiles every generated method with exec() when a class is defined (about a
millisecond per frozen class, plus importing `inspect`), and one hook call defines some thirty
value classes: that alone cost more than everything else `ccbridge run` does. `record` gives a
class the same behaviour from shared functions instead: `__init__` with defaults and
`default_factory`, `__repr__`, `__eq__`, `__hash__` when frozen (unhashable when mutable),
frozenness (`dataclasses.FrozenInstanceError`), `__slots__`, `__match_args__`, pickling and
copying. `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` still work on records:
`__dataclass_fields__` is built, importing `dataclasses`, the first time something asks for it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook call some 2 ms: type checkers only
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_specifiers: object) -> object:
        return lambda decorator: decorator


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """What `field()` returns: a default, or a factory called for every new instance."""

    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None) -> None:
        self.default, self.default_factory = default, default_factory


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | None = None) -> Any:
    if default is not MISSING and default_factory is not None:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory)


_MUTABLE = (list, dict, set)


def _declared(cls: type) -> list[tuple[str, Any, Field]]:
    """(name, annotation, Field) of the fields in declaration order, inherited ones first."""
    declared: dict[str, tuple[str, Any, Field]] = {}
    for base in reversed(cls.__mro__[1:]):
        for item in base.__dict__.get("__record_fields__", ()):
            declared[item[0]] = item
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is what we avoid)
    for name, annotation in own.items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if text.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, None)
        if isinstance(spec.default, _MUTABLE):
            raise ValueError(
                f"mutable default {type(spec.default)} for field {name} is not "
                "allowed: use default_factory"
            )
        declared[name] = (name, annotation, spec)
    seen_default = False
    for name, _annotation, spec in declared.values():
        has_default = spec.default is not MISSING or spec.default_factory is not None
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default = seen_default or has_default
    return list(declared.values())


def _frozen_error(message: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # only on the error path

    return FrozenInstanceError(message)


class _DataclassFields:
    """`__dataclass_fields__`, built on first use so that defining a record never imports
    `dataclasses`; afterwards the class holds the plain dict."""

    def __get__(self, instance: object, owner: type) -> dict[str, Any]:
        import dataclasses

        built = {}
        for name, annotation, spec in owner.__record_fields__:  # type: ignore[attr-defined]
            made: Any = dataclasses.field(
                default=dataclasses.MISSING if spec.default is MISSING else spec.default,
                default_factory=spec.default_factory or dataclasses.MISSING,
            )
            made.name, made.type, made.kw_only = name, annotation, False
            made._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            built[name] = made
        type.__setattr__(owner, "__dataclass_fields__", built)
        return built


def _methods(
    cls: type,
    made: list[Any],
    fields: list[tuple[str, Any, Field]],
    frozen: bool,
    explicit_hash: bool,
    slotted: bool,
) -> dict[str, Any]:
    """The methods of the record made from `cls`; `made` holds that class once it exists (the
    methods go into its namespace: setting them on a finished class costs far more)."""
    names = tuple(name for name, _annotation, _spec in fields)
    specs = tuple(spec for _name, _annotation, spec in fields)
    count, known = len(names), frozenset(names)
    # As dataclasses: a frozen record's fields are set past its __setattr__, a mutable one's not.
    set_field: Callable[[Any, str, Any], None] = object.__setattr__ if frozen else setattr
    post_init = getattr(cls, "__post_init__", None) is not None

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) == count and not kwargs:  # the common call: every field by position
            for name, value in zip(names, args, strict=True):
                set_field(self, name, value)
        else:
            _bind(self, args, kwargs)
        if post_init:
            self.__post_init__()

    def _bind(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(args) > count:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes {count + 1} positional "
                f"arguments but {len(args) + 1} were given"
            )
        for key in kwargs:
            if key not in known:
                raise TypeError(
                    f"{type(self).__name__}.__init__() got an unexpected keyword argument {key!r}"
                )
        for position, (name, spec) in enumerate(zip(names, specs, strict=True)):
            if position < len(args):
                if name in kwargs:
                    raise TypeError(
                        f"{type(self).__name__}.__init__() got multiple values for "
                        f"argument {name!r}"
                    )
                value = args[position]
            elif name in kwargs:
                value = kwargs[name]
            elif spec.default_factory is not None:
                value = spec.default_factory()
            elif spec.default is not MISSING:
                value = spec.default
            else:
                raise TypeError(
                    f"{type(self).__name__}.__init__() missing 1 required "
                    f"positional argument: {name!r}"
                )
            set_field(self, name, value)

    def values(self: Any) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in names])

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(values(self) == values(other))
        return NotImplemented

    methods: dict[str, Any] = {"__init__": __init__, "__repr__": __repr__, "__eq__": __eq__}
    if frozen:

        def __hash__(self: Any) -> int:
            return hash(values(self))

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is made[0] or name in known:
                raise _frozen_error(f"cannot assign to field {name!r}")
            super(made[0], self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is made[0] or name in known:
                raise _frozen_error(f"cannot delete field {name!r}")
            super(made[0], self).__delattr__(name)

        def __getstate__(self: Any) -> list[Any]:
            return list(values(self))

        def __setstate__(self: Any, state: list[Any]) -> None:
            for name, value in zip(names, state, strict=True):
                set_field(self, name, value)

        methods.update(__setattr__=__setattr__, __delattr__=__delattr__)
        if not explicit_hash:
            methods["__hash__"] = __hash__
        if slotted:
            methods.update(__getstate__=__getstate__, __setstate__=__setstate__)
    elif not explicit_hash:
        methods["__hash__"] = None  # mutable and compared by value: unhashable, as dataclasses
    for qualified in methods.values():
        if qualified is not None:
            qualified.__qualname__ = f"{cls.__qualname__}.{qualified.__name__}"
    return methods


def _build(cls: type[T], frozen: bool, slots: bool) -> type[T]:
    fields = _declared(cls)
    namespace = dict(cls.__dict__)
    for name, _annotation, spec in fields:
        if spec.default is MISSING or slots:
            namespace.pop(name, None)
        else:
            namespace[name] = spec.default  # as dataclasses: the default is a class attribute
    if slots:
        inherited = {
            slot for base in cls.__mro__[1:] for slot in base.__dict__.get("__slots__", ())
        }
        namespace["__slots__"] = tuple(name for name, _a, _s in fields if name not in inherited)
    namespace.pop("__dict__", None)  # the new class makes its own (or none, with slots)
    namespace.pop("__weakref__", None)
    namespace["__record_fields__"] = tuple(fields)
    namespace.setdefault("__match_args__", tuple(name for name, _a, _s in fields))
    namespace["__qualname__"] = cls.__qualname__
    namespace["__dataclass_fields__"] = _DataclassFields()
    own = cls.__dict__
    # As dataclasses: a __hash__ of the class's own is kept; None set by defining __eq__ is not.
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    made: list[Any] = []
    slotted = "__slots__" in namespace
    for name, method in _methods(cls, made, fields, frozen, explicit_hash, slotted).items():
        if frozen and name in ("__setattr__", "__delattr__") and name in own:
            raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        if name == "__hash__" or name not in own:
            namespace[name] = method
    metaclass: Any = type(cls)
    built: type[T] = metaclass(cls.__name__, cls.__bases__, namespace)
    made.append(built)
    return built


@dataclass_transform(field_specifiers=(field,))
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]:
    """`@record(frozen=True, slots=True)` behaves as `@dataclass(frozen=True, slots=True)`."""

    def wrap(cls: type[T]) -> type[T]:
        return _build(cls, frozen, slots)

    return wrap


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed, as `dataclasses.replace`."""
    for name, _annotation, _spec in type(obj).__record_fields__:  # type: ignore[attr-defined]
        if name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)
