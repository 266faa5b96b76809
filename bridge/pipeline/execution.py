"""The tool call being judged, with its input frozen, and the result it produced."""

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Mapping

from bridge.pipeline.valueclass import Record, field

MappingProxyType = type(type.__dict__)  # as `types` defines it, without importing `types`

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from typing import Any


def freeze(value: "Any") -> "Any":
    """A read-only deep copy of JSON-like data: no station may rewrite the input."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: "Any") -> "Any":
    """Plain JSON data again (dicts and lists) from what `freeze` made."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


class Execution(Record, frozen=True, slots=True):
    """One tool call: who asked for what. Built once, never changed by any station."""

    tool_name: str
    input: "Mapping[str, Any]"
    tool_use_id: str = ""
    session_id: str = ""
    agent_id: "str | None" = None
    cwd: str = ""

    @classmethod
    def create(cls, tool_name: str, tool_input: "Mapping[str, Any]", **facts: "Any") -> "Execution":
        return cls(tool_name=tool_name, input=freeze(tool_input), **facts)


class ToolResult(Record, frozen=True, slots=True):
    """What a tool call produced, or the error that stands in for it.

    `post_result` marks a denial materialised as a result: the body never ran, but post-execute
    and the observers still see it like any other result.
    """

    content: str
    value: "Any" = None
    is_error: bool = False
    code: "str | None" = None
    post_result: bool = False
    context: "tuple[str, ...]" = field(default=())
