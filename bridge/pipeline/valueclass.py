"""Value classes that cost next to nothing to define: `class X(Record, frozen=True)` instead of
`@dataclass(frozen=True)`.

`dataclasses` compiles every generated method with exec() when a class is defined (about a
millisecond per frozen class, plus importing `inspect`), and one hook call defines some thirty
value classes. A record is made once, by its metaclass, from methods every record shares: the
fields are read from the annotations and the class is created with its `__slots__`, its defaults
and its methods in one go (a decorator would have to make a slotted class twice). It behaves as
the dataclass would for what ccbridge's values use: `__init__` with defaults and
`default_factory`, `__repr__`, `__eq__`, `__hash__` when frozen (unhashable when mutable),
frozenness (`dataclasses.FrozenInstanceError`), `__slots__`, `__match_args__`, and `replace`.
Nothing pickles or copies a record and nothing hands one to `dataclasses` (a record turns itself
into plain values where it must, as `HookSpec.to_json` does), so records have no pickling state
and no `__dataclass_fields__`; nor `__post_init__`, which no record needs (defining one is an
error rather than a method never called).

Unlike dataclasses, every subclass of a record is a record, and takes its parent's `frozen` and
`slots` unless it says otherwise (as `msgspec.Struct` and pydantic models do).
"""

from _operator import itemgetter  # built in: `operator` would be a module to import

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Callable
    from typing import Any, ClassVar, TypeVar, dataclass_transform

    T = TypeVar("T")
    # A field as a record holds it: (name, annotation, default, default factory). A plain tuple:
    # a class defines several, and an object's __init__ would cost each its own call.
    FieldSpec = tuple[str, Any, Any, Callable[[], Any] | None]
    # What a record takes from its bases: (fields, frozen or None when no record base says,
    # slots, the bases' slot names). A tuple: a class of its own would cost every hook call its
    # creation.
    Inherited = tuple[tuple[FieldSpec, ...], bool | None, bool, frozenset[str]]
else:

    def dataclass_transform(**_specifiers: object) -> object:
        return lambda decorated: decorated


# The sentinel and the field marker are plain objects, not classes of their own: a class costs
# every hook call its creation (~60 k instructions, valgrind), and these are made once.
MISSING: "Any" = object()
_FIELD = object()  # first of the triple `field()` returns: (_FIELD, default, default factory)


def field(*, default: "Any" = MISSING, default_factory: "Callable[[], Any] | None" = None) -> "Any":
    """A default, or a factory called for every new instance."""
    if default is not MISSING and default_factory is not None:
        raise ValueError("cannot specify both default and default_factory")
    return (_FIELD, default, default_factory)


def _is_field(value: object) -> bool:
    return type(value) is tuple and len(value) == 3 and value[0] is _FIELD


_MUTABLE = (list, dict, set)
_name_of = itemgetter(0)  # of a FieldSpec
_CLASS_VAR = ("ClassVar", "typing.ClassVar")


def _declared(
    inherited: "tuple[FieldSpec, ...]", namespace: "dict[str, Any]"
) -> "tuple[FieldSpec, ...]":
    """The fields in declaration order, inherited ones first (a redeclared one keeps its
    place and takes its new default)."""
    declared = {item[0]: item for item in inherited} if inherited else {}
    seen_default = False  # (checked as the fields come when none is inherited: most records)
    for name, annotation in namespace.get("__annotations__", {}).items():
        if (annotation if type(annotation) is str else repr(annotation)).startswith(_CLASS_VAR):
            continue
        value = namespace.get(name, MISSING)
        if _is_field(value):
            _mark, default, factory = value
        elif isinstance(value, _MUTABLE):
            raise ValueError(
                f"mutable default {type(value)} for field {name} is not allowed: use "
                "default_factory"
            )
        else:
            default, factory = value, None
        declared[name] = (name, annotation, default, factory)
        if default is not MISSING or factory is not None:
            seen_default = True
        elif seen_default and not inherited:
            raise TypeError(f"non-default argument {name!r} follows default argument")
    fields = tuple(declared.values())
    if inherited:  # a redeclared field keeps its place: the order is only known now
        seen_default = False
        for name, _annotation, default, factory in fields:
            has_default = default is not MISSING or factory is not None
            if seen_default and not has_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            seen_default = seen_default or has_default
    return fields


def _frozen_error(message: str) -> "AttributeError":
    from dataclasses import FrozenInstanceError  # only on the error path

    return FrozenInstanceError(message)


@dataclass_transform(field_specifiers=(field,))
class RecordMeta(type):
    """Makes a record class: its fields, slots, defaults and methods, in one class creation."""

    def __new__(
        mcls,
        name: str,
        bases: "tuple[type, ...]",
        namespace: "dict[str, Any]",
        *,
        frozen: "bool | None" = None,
        slots: "bool | None" = None,
    ) -> "RecordMeta":
        if "__record__" in namespace:  # `Record` itself: the base, no fields
            return type.__new__(mcls, name, bases, namespace)
        made: RecordMeta = _made(mcls, name, bases, namespace, frozen, slots)
        return made


def _made(
    mcls: "type",
    name: str,
    bases: "tuple[type, ...]",
    namespace: "dict[str, Any]",
    frozen: "bool | None",
    slots: "bool | None",
) -> "Any":
    """The record class (RecordMeta.__new__, kept a function so that mutation testing can
    reach it)."""
    if len(bases) == 1 and bases[0] is Record:  # nothing to inherit: the common case
        parent = _NOTHING_INHERITED
    else:
        parent = _inherited(bases, name)
    inherited_fields, inherited_frozen, inherited_slots, slot_names = parent
    if inherited_frozen is not None and frozen is not None and inherited_frozen != frozen:
        raise TypeError(
            f"cannot inherit {'' if frozen else 'non-'}frozen record {name} from a "
            f"{'non-' if frozen else ''}frozen one"
        )
    if "__post_init__" in namespace:
        raise TypeError(f"record {name} defines __post_init__, which records do not call")
    frozen = bool(inherited_frozen) if frozen is None else frozen
    slots = inherited_slots if slots is None else slots
    fields = _declared(inherited_fields, namespace)
    names = tuple(map(_name_of, fields))  # (in C: a class statement costs every hook call)
    if frozen:
        if "__setattr__" in namespace or "__delattr__" in namespace:
            method = "__setattr__" if "__setattr__" in namespace else "__delattr__"
            raise TypeError(f"cannot overwrite attribute {method} in class {name}")
        namespace["__setattr__"], namespace["__delattr__"] = _setattr, _delattr
    # As dataclasses: a __hash__ of the class's own is kept; None set by defining __eq__ is
    # not (the class statement sets it only later, so a missing one means "generate").
    if "__hash__" not in namespace or (namespace["__hash__"] is None and "__eq__" in namespace):
        namespace["__hash__"] = _hash if frozen else None
    if "__init__" not in namespace:
        namespace["__init__"] = _init
    if "__repr__" not in namespace:
        namespace["__repr__"] = _repr
    if "__eq__" not in namespace:
        namespace["__eq__"] = _eq
    if "__match_args__" not in namespace:
        namespace["__match_args__"] = names
    if slots:
        if "__slots__" not in namespace:
            namespace["__slots__"] = (
                tuple([n for n in names if n not in slot_names]) if slot_names else names
            )
        for field_name in names:  # a default is kept with its field: no class attribute
            namespace.pop(field_name, None)
    else:
        for field_name, _annotation, default, _factory in fields:
            if _is_field(namespace.get(field_name)):  # as dataclasses: the default
                if default is MISSING:  # is a class attribute, a factory is not
                    del namespace[field_name]
                else:
                    namespace[field_name] = default
    # The shared methods read these: the names and frozenness are worked out once per class
    # here, not on every instance.
    namespace["__record_fields__"] = fields
    namespace["__record_names__"] = names
    namespace["__record_frozen__"], namespace["__record_slotted__"] = frozen, slots
    return type.__new__(mcls, name, bases, namespace)


_NOTHING_INHERITED: "Inherited" = ((), None, False, frozenset())


def _inherited(bases: "tuple[type, ...]", name: str) -> "Inherited":
    fields: dict[str, FieldSpec] = {}
    frozen: set[bool] = set()
    slots = False
    for base in reversed(bases):
        if not isinstance(base, RecordMeta) or "__record__" in base.__dict__:
            continue
        for item in base.__record_fields__:  # type: ignore[attr-defined]
            fields[item[0]] = item
        frozen.add(base.__record_frozen__)  # type: ignore[attr-defined]
        slots = slots or base.__record_slotted__  # type: ignore[attr-defined]
    if len(frozen) > 1:  # as dataclasses: no record is both
        raise TypeError(f"record {name} cannot inherit from frozen and non-frozen records")
    slot_names = frozenset(
        slot
        for base in bases
        for klass in base.__mro__
        for slot in klass.__dict__.get("__slots__", ())
    )
    said = frozen.pop() if frozen else None
    return tuple(fields.values()), said, slots, slot_names


def _init(self: "Any", *args: "Any", **kwargs: "Any") -> None:
    cls = type(self)
    names = cls.__record_names__
    # As dataclasses: a frozen record's fields are set past its __setattr__, a mutable one's not.
    set_field = object.__setattr__ if cls.__record_frozen__ else setattr
    if len(args) == len(names) and not kwargs:  # the common call: every field by position
        for name, value in zip(names, args, strict=True):
            set_field(self, name, value)
    else:
        _bind(self, cls, set_field, args, kwargs)


def _bind(
    self: "Any",
    cls: "Any",
    set_field: "Callable[[Any, str, Any], None]",
    args: "tuple[Any, ...]",
    kwargs: "dict[str, Any]",
) -> None:
    fields = cls.__record_fields__
    if len(args) > len(fields):
        raise TypeError(
            f"{cls.__name__}.__init__() takes {len(fields) + 1} positional "
            f"arguments but {len(args) + 1} were given"
        )
    for key in kwargs:
        if key not in cls.__record_names__:
            raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {key!r}")
    for position, (name, _annotation, default, factory) in enumerate(fields):
        if position < len(args):
            if name in kwargs:
                raise TypeError(
                    f"{cls.__name__}.__init__() got multiple values for argument {name!r}"
                )
            value = args[position]
        elif name in kwargs:
            value = kwargs[name]
        elif factory is not None:
            value = factory()
        elif default is not MISSING:
            value = default
        else:
            raise TypeError(
                f"{cls.__name__}.__init__() missing 1 required positional argument: {name!r}"
            )
        set_field(self, name, value)


def _values(self: "Any") -> "tuple[Any, ...]":
    return tuple([getattr(self, name) for name in type(self).__record_names__])


def _repr(self: "Any") -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record_names__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: "Any", other: object) -> object:
    if other.__class__ is self.__class__:
        return bool(_values(self) == _values(other))
    return NotImplemented


def _hash(self: "Any") -> int:
    return hash(_values(self))


def _setattr(self: "Any", name: str, value: "Any") -> None:
    raise _frozen_error(f"cannot assign to field {name!r}")


def _delattr(self: "Any", name: str) -> None:
    raise _frozen_error(f"cannot delete field {name!r}")


class Record(metaclass=RecordMeta):
    """The base of every record: `class Point(Record, frozen=True, slots=True)`."""

    __slots__ = ()
    __record__: "ClassVar[bool]" = True
    __record_fields__: "ClassVar[tuple[FieldSpec, ...]]" = ()
    __record_names__: "ClassVar[tuple[str, ...]]" = ()
    __record_frozen__: "ClassVar[bool]" = False
    __record_slotted__: "ClassVar[bool]" = False


def replace(obj: "T", /, **changes: "Any") -> "T":
    """A copy of a record with some fields changed, as `dataclasses.replace`."""
    for name in type(obj).__record_names__:  # type: ignore[attr-defined]
        if name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)
