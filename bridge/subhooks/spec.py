"""A configured sub-hook handler, compiled to plain values (no pydantic on the hot path)."""

from __future__ import annotations

from bridge.pipeline.valueclass import Record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Sequence
    from typing import Any, Literal

    OnFailure = Literal["block", "ignore"]


class HookSpec(Record, frozen=True, slots=True):
    """One CC handler as ccbridge runs it.

    `where` names the file and place it was configured (for audit, explain and errors);
    `order` is its position in config order, used only where config order is kept
    (contexts and system messages), never for the verdict or its reason.
    """

    event: str
    name: str
    where: str
    order: int
    type: str = "command"
    matcher: str | None = None
    command: str | None = None
    args: tuple[str, ...] | None = None
    shell: str | None = None
    timeout: float = 20.0
    on_failure: OnFailure = "block"
    if_rule: str | None = None
    is_async: bool = False

    @property
    def identity(self) -> tuple[Any, ...]:
        """Identical handlers (same thing run the same way) run once, as in CC; `merged` says
        with which settings."""
        return (self.type, self.command, self.args, self.shell, self.if_rule)

    def to_json(self) -> dict[str, Any]:
        """The fields as plain values (JSON gives `args` back as a list; `from_json` makes it a
        tuple again)."""
        return {name: getattr(self, name) for name in self.__record_names__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HookSpec:
        args = data.get("args")
        return cls(**{**data, "args": tuple(args) if args is not None else None})


def merged(copies: Sequence[HookSpec]) -> HookSpec:
    """One run for identical handlers, with their strictest settings: `block` over `ignore`,
    the shortest timeout. Nothing depends on the copies' order: the name (and place) is the
    least one, the position in config order the first."""
    named = min(copies, key=lambda copy: (copy.name, copy.where))
    return replace(
        named,
        order=min(copy.order for copy in copies),
        on_failure="ignore" if all(c.on_failure == "ignore" for c in copies) else "block",
        timeout=min(copy.timeout for copy in copies),
    )
