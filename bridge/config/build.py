"""Reading, validating and layering config files into a CompiledConfig (the slow path).

Errors name the file, the line and the place in the document, and say what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml
from pydantic import ValidationError

from bridge.config.compiled import POLICY_KINDS, CompiledConfig, PolicyRef, Source
from bridge.config.schema import BridgeConfig, Handler
from bridge.subhooks.spec import HookSpec

Location = tuple[str | int, ...]


class ConfigError(ValueError):
    """A config file that cannot be used; the message names file, line and what was expected."""


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    place: str
    message: str

    def __str__(self) -> str:
        at = f"{self.file}:{self.line}" if self.line else self.file
        return f"{at}: {self.place}: {self.message}" if self.place else f"{at}: {self.message}"


def _place(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class LineIndex:
    """Line numbers of a YAML/JSON document's nodes, found by their path of keys and indices."""

    def __init__(self, text: str) -> None:
        try:
            self._root: yaml.Node | None = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            self._root = None

    def line(self, location: Location) -> int | None:
        node, best = self._root, None
        if node is None:
            return None
        best = node.start_mark.line + 1
        for part in location:
            child = self._child(node, part)
            if child is None:
                break
            node = child
            best = node.start_mark.line + 1
        return best

    @staticmethod
    def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    return value if isinstance(value, yaml.Node) else None
        if isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            items = node.value
            return items[part] if 0 <= part < len(items) else None
        return None


def parse_document(path: Path, content: bytes) -> tuple[Mapping[str, Any], bool]:
    """The document's data and whether it is a CC settings JSON file (its `hooks` key is used)."""
    is_json = path.suffix == ".json"
    try:
        data = orjson.loads(content) if is_json else yaml.safe_load(content.decode("utf-8"))
    except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid {'JSON' if is_json else 'UTF-8'}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{path}{line}: not valid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top, got {type(data).__name__}")
    if is_json:
        return {"hooks": data.get("hooks", {})}, True
    return data, False


def validate(path: Path, content: bytes) -> tuple[BridgeConfig, LineIndex]:
    data, is_json = parse_document(path, content)
    lines = LineIndex(content.decode("utf-8", "replace"))
    try:
        return BridgeConfig.model_validate(data), lines
    except ValidationError as error:
        problems = [_problem(path, lines, item, is_json) for item in error.errors()]
        raise ConfigError("\n".join(str(problem) for problem in problems)) from None


def problems_of(path: Path, content: bytes) -> list[Problem]:
    """Every problem in one file (for `ccbridge check`), empty when it is valid."""
    try:
        data, is_json = parse_document(path, content)
    except ConfigError as error:
        text = str(error).removeprefix(f"{path}")
        found = re.match(r":(\d+): ", text)
        if found:
            return [Problem(str(path), int(found.group(1)), "", text[found.end() :])]
        return [Problem(str(path), None, "", text.lstrip(": "))]
    lines = LineIndex(content.decode("utf-8", "replace"))
    try:
        BridgeConfig.model_validate(data)
    except ValidationError as error:
        return [_problem(path, lines, item, is_json) for item in error.errors()]
    return []


def _problem(path: Path, lines: LineIndex, item: Any, is_json: bool) -> Problem:
    location = tuple(part for part in item["loc"] if not str(part).startswith("function-"))
    message = str(item["msg"]).removeprefix("Value error, ")
    if item["type"] == "extra_forbidden":
        message = "unknown key (check the spelling; `ccbridge schema` lists the keys)"
    return Problem(str(path), lines.line(location), _place(location), message)


def hook_name(handler: Handler) -> str:
    if handler.name:
        return handler.name
    text = " ".join([handler.command or "", *(handler.args or [])]).strip()
    return text if len(text) <= 60 else "…" + text[-59:]  # the end names the script


def _specs(
    path: Path,
    config: BridgeConfig,
    lines: LineIndex,
    start: int,
    default_timeout: float,
    default_on_failure: str,
) -> list[HookSpec]:
    specs: list[HookSpec] = []
    for event, groups in config.hooks.items():
        for g, group in enumerate(groups):
            for h, handler in enumerate(group.hooks):
                location: Location = ("hooks", event, g, "hooks", h)
                line = lines.line(location)
                specs.append(
                    HookSpec(
                        event=event,
                        name=hook_name(handler),
                        where=f"{path}:{line} {_place(location)}"
                        if line
                        else f"{path} {_place(location)}",
                        order=start + len(specs),
                        matcher=group.matcher,
                        command=handler.command,
                        args=tuple(handler.args) if handler.args is not None else None,
                        shell=handler.shell,
                        timeout=handler.timeout or default_timeout,
                        on_failure=handler.on_failure or default_on_failure,  # type: ignore[arg-type]
                        if_rule=handler.if_rule,
                    )
                )
    return specs


def _absolute_ref(ref: str, base: Path) -> str:
    target, _, attr = ref.rpartition(":")
    if target.endswith(".py") or "/" in target:
        return f"{(base / Path(target).expanduser()).resolve()}:{attr}"
    return ref


def _merged(layers: Sequence[BridgeConfig], section: str) -> dict[str, Any]:
    """Field by field, a more specific layer overrides what a less specific one set."""
    merged: dict[str, Any] = {}
    for layer in layers:
        model = getattr(layer, section)
        if not merged:
            merged = model.model_dump()
        merged.update({name: getattr(model, name) for name in model.model_fields_set})
    return merged


def compile_sources(sources: Iterable[Source], key: str) -> CompiledConfig:
    sources = list(sources)
    if not sources:
        return CompiledConfig(digest=key)
    files = tuple(str(source.path) for source in sources)
    try:
        return _compile(sources, key)
    except ConfigError as error:
        return CompiledConfig(files=files, digest=key, error=str(error))


def _compile(sources: list[Source], key: str) -> CompiledConfig:
    validated: list[tuple[Source, BridgeConfig, LineIndex]] = []
    for source in sources:
        if source.content is None:
            raise ConfigError(f"{source.path}: config file not found or not readable")
        config, lines = validate(source.path, source.content)
        validated.append((source, config, lines))
    layers = [config for _, config, _ in validated]
    defaults = _merged(layers, "defaults")
    hooks: dict[str, list[HookSpec]] = {}
    policies: dict[str, list[PolicyRef]] = {kind: [] for kind in POLICY_KINDS}
    off_in = None
    for source, config, lines in validated:
        order = sum(len(specs) for specs in hooks.values())
        for spec in _specs(
            source.path, config, lines, order, defaults["timeout"], defaults["on_failure"]
        ):
            hooks.setdefault(spec.event, []).append(spec)
        for kind in POLICY_KINDS:
            for i, ref in enumerate(getattr(config.policies, kind)):
                line = lines.line(("policies", kind, i))
                policies[kind].append(
                    PolicyRef(
                        _absolute_ref(ref, source.path.parent),
                        f"{source.path}:{line}" if line else str(source.path),
                    )
                )
        if "self_protection" in config.model_fields_set and not config.self_protection:
            off_in = str(source.path)
    audit = _merged(layers, "audit")
    if audit["path"]:
        audit["path"] = str((sources[-1].path.parent / Path(audit["path"]).expanduser()).resolve())
    return CompiledConfig(
        files=tuple(str(source.path) for source in sources),
        digest=key,
        hooks={event: tuple(specs) for event, specs in hooks.items()},
        approval=defaults["approval"],
        max_hooks=defaults["max_hooks"],
        output_cap=defaults["output_cap"],
        policies={kind: tuple(refs) for kind, refs in policies.items()},
        audit=audit,
        goals=_merged(layers, "goals"),
        self_protection=off_in is None,
        self_protection_off_in=off_in,
    )
