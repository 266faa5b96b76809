"""`record(frozen=..., slots=...)`: a decorator making a record of a plain class, so that the
record tests can declare one class both as a dataclass and as a record and compare them."""

from __future__ import annotations

from typing import Any

from bridge.pipeline.valueclass import Record, RecordMeta


def record(*, frozen: bool = False, slots: bool = False) -> Any:
    def make(cls: type[Any]) -> type[Any]:
        if isinstance(cls, RecordMeta):  # a subclass of a record: the class statement made it
            assert (cls.__record_frozen__, cls.__record_slotted__) == (frozen, slots)
            return cls
        namespace = {
            key: value
            for key, value in cls.__dict__.items()
            if key not in ("__dict__", "__weakref__")
        }
        namespace["__qualname__"] = cls.__qualname__
        bases = tuple(base for base in cls.__bases__ if base is not object)
        return RecordMeta(cls.__name__, (Record, *bases), namespace, frozen=frozen, slots=slots)

    return make
