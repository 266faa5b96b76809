"""Reading, validating and layering config files into a CompiledConfig (the slow path).

Errors name the file, the line and the place in the document, and say what was expected.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml
from pydantic import BaseModel, ValidationError

from bridge import CcbridgeError
from bridge.config.compiled import (
    MAX_CONFIG_BYTES,
    POLICY_KINDS,
    AuditConfig,
    CompiledConfig,
    GoalConfig,
    PolicyRef,
    Source,
)
from bridge.config.schema import (
    Audit,
    BridgeConfig,
    Defaults,
    Goals,
    Handler,
    Policies,
)
from bridge.subhooks.spec import HookSpec
from bridge.wire.event import CC_EVENTS, NOT_RUN, SUBHOOK_EVENTS, deeper_than

Location = tuple[str | int, ...]
# A real config nests some eight levels (hooks, event, group, handler, args); PyYAML's recursion
# gives out past a few hundred.
MAX_CONFIG_NESTING = 64
_TOO_DEEP = f"nested deeper than {MAX_CONFIG_NESTING} levels (a config needs fewer than ten)"
# YAML aliases repeat a node without repeating its text: nine lines of nine aliases each stand
# for 9^9 values (the "billion laughs"), which building and validating would take minutes over.
# A document is refused when its aliases expand it past this many nodes; without aliases a
# config within MAX_CONFIG_BYTES has fewer.
MAX_EXPANDED_NODES = 1 << 18
# The keys CC reads in a hook handler and a matcher group, plus ccbridge's own `name`: a key
# close to one of these is a misspelling.
HANDLER_KEYS = (
    *("type", "command", "args", "if", "shell", "timeout", "onFailure", "statusMessage"),
    *("once", "async", "asyncRewake", "holdsTools", "name"),
)
GROUP_KEYS = ("matcher", "hooks")
# The sections that refuse unknown keys, by where they sit.
SECTIONS: dict[Location, type[BaseModel]] = {
    (): BridgeConfig,
    ("defaults",): Defaults,
    ("policies",): Policies,
    ("audit",): Audit,
    ("goals",): Goals,
}


class ConfigError(CcbridgeError):
    """A config file that cannot be used; the message names file, line and what was expected."""


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    place: str
    message: str
    warning: bool = False  # worth saying, but the config works

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

    def line(self, location: Location, key: bool = False) -> int | None:
        """The line of the node at `location`; with `key`, of the mapping key that names it."""
        node, best = self._root, None
        if node is None:
            return None
        best = node.start_mark.line + 1
        for i, part in enumerate(location):
            child = self._child(node, part, key and i == len(location) - 1)
            if child is None:
                break
            node = child
            best = node.start_mark.line + 1
        return best

    @staticmethod
    def _child(node: yaml.Node, part: str | int, key_node: bool = False) -> yaml.Node | None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    found = key if key_node else value
                    return found if isinstance(found, yaml.Node) else None
        if isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            items = node.value
            return items[part] if 0 <= part < len(items) else None
        return None


def parse_document(path: Path, content: bytes) -> tuple[Mapping[str, Any], bool]:
    """The document's data and whether it is a CC settings JSON file (its `hooks` key is used)."""
    if len(content) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{path}: {_size(path, content)} bytes, over the {MAX_CONFIG_BYTES}-byte limit for a "
            "config file (keep hooks and policies in it; move data to files the hooks read)"
        )
    is_json = path.suffix == ".json"
    # Brackets are how a small file nests deep; only then is the cheaper depth scan run first.
    deep_at = None
    if not is_json and content.count(b"[") + content.count(b"{") > MAX_CONFIG_NESTING:
        deep_at = _deep_line(content.decode("utf-8", "replace"))
    if deep_at is not None:
        raise ConfigError(f"{path}:{deep_at}: {_TOO_DEEP}")
    try:
        data = orjson.loads(content) if is_json else _load_yaml(path, content.decode("utf-8"))
    except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid {'JSON' if is_json else 'UTF-8'}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{path}{line}: not valid YAML: {problem}") from None
    except RecursionError:  # PyYAML builds nested nodes recursively
        data = None
        deep = True
    else:
        deep = deeper_than(data, MAX_CONFIG_NESTING)
    if deep:
        deep_at = _deep_line(content.decode("utf-8", "replace"))
        raise ConfigError(f"{path}{f':{deep_at}' if deep_at else ''}: {_TOO_DEEP}")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top, got {type(data).__name__}")
    if is_json:
        return {"hooks": data.get("hooks", {})}, True
    return data, False


def _load_yaml(path: Path, text: str) -> Any:
    """yaml.safe_load, refusing a document whose aliases expand it past MAX_EXPANDED_NODES
    before anything is built from it."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        expanded = _expanded_size(node, {})
        if expanded > MAX_EXPANDED_NODES:
            raise ConfigError(
                f"{path}: its YAML aliases (*name) expand it to over {MAX_EXPANDED_NODES} values "
                '(a "billion laughs" document); write the values out, or alias less'
            )
        _refuse_duplicate_keys(path, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _refuse_duplicate_keys(path: Path, root: yaml.Node) -> None:
    """PyYAML keeps the last of two equal keys and drops the first without a word (a second
    `hooks:` appended to a file switches the first block's hooks off): refuse it, naming both."""
    pending, seen = [root], set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key, value in node.value:
                pending.append(value)
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                line, earlier = key.start_mark.line + 1, first.get((key.tag, key.value))
                first.setdefault((key.tag, key.value), line)
                if earlier is not None:
                    raise ConfigError(
                        f"{path}:{line}: duplicate key `{key.value}` (first at line {earlier}): "
                        "YAML would keep only this one and drop the first without a word; "
                        "merge the two into one"
                    )


def _expanded_size(node: yaml.Node, seen: dict[int, int]) -> int:
    """How many nodes `node` stands for with every alias written out; each shared node is
    counted once (memoised), so this is linear in the document, not in its expansion."""
    known = seen.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            size += _expanded_size(item, seen)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            size += _expanded_size(key, seen) + _expanded_size(value, seen)
    seen[id(node)] = size = min(size, MAX_EXPANDED_NODES + 1)
    return size


def _size(path: Path, content: bytes) -> int:
    try:
        return max(path.stat().st_size, len(content))
    except OSError:
        return len(content)


def _deep_line(text: str) -> int | None:
    """The line where the document first nests past MAX_CONFIG_NESTING, from PyYAML's event stream
    (which, unlike building the nodes, needs no recursion)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_CONFIG_NESTING and event.start_mark is not None:
                    return int(event.start_mark.line) + 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    return None


def validate(path: Path, content: bytes) -> tuple[BridgeConfig, LineIndex]:
    config, lines, problems = _examine(path, content)
    if config is None or problems:
        raise ConfigError("\n".join(str(problem) for problem in problems))
    return config, lines


def problems_of(path: Path, content: bytes) -> list[Problem]:
    """Every problem in one file (for `ccbridge check`), empty when it is valid."""
    try:
        return _examine(path, content)[2]
    except ConfigError as error:
        text = str(error).removeprefix(f"{path}")
        found = re.match(r":(\d+): ", text)
        if found:
            return [Problem(str(path), int(found.group(1)), "", text[found.end() :])]
        return [Problem(str(path), None, "", text.lstrip(": "))]


def _examine(path: Path, content: bytes) -> tuple[BridgeConfig | None, LineIndex, list[Problem]]:
    data, is_json = parse_document(path, content)
    lines = LineIndex(content.decode("utf-8", "replace"))
    problems = [
        Problem(str(path), lines.line(location, key=True), _place(location), message)
        for location, message in _unknown_names(data, is_json)
    ]
    try:
        config = BridgeConfig.model_validate(data)
    except ValidationError as error:
        problems += [_problem(path, lines, item) for item in error.errors()]
        config = None
    return config, lines, sorted(problems, key=lambda problem: problem.line or 0)


def _unknown_names(data: Mapping[str, Any], is_json: bool) -> Iterator[tuple[Location, str]]:
    """Events and hook keys that are misspelt or would never run. Unknown hook keys that look
    like no known one pass: CC adds fields often, and ccbridge ignores what it does not use."""
    hooks = data.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        where: Location = ("hooks", str(event))
        if event not in CC_EVENTS:
            yield where, f"unknown event {event!r}{_did_you_mean(str(event), CC_EVENTS)}"
        elif event not in SUBHOOK_EVENTS and not is_json:  # a settings file's CC runs them
            yield (
                where,
                (
                    f"ccbridge does not run {event} hooks: {NOT_RUN[event]} (it runs only "
                    f"{', '.join(sorted(SUBHOOK_EVENTS))}; register these in Claude Code's "
                    "settings, .claude/settings.json, where Claude Code runs them itself)"
                ),
            )
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            if not isinstance(group, dict):
                continue
            yield from _misspelt(group, GROUP_KEYS, (*where, g))
            handlers = group.get("hooks")
            for h, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if isinstance(handler, dict):
                    yield from _misspelt(handler, HANDLER_KEYS, (*where, g, "hooks", h))


def _misspelt(
    mapping: Mapping[Any, Any], known: Collection[str], where: Location
) -> Iterator[tuple[Location, str]]:
    for key in mapping:
        if key not in known:
            hint = _did_you_mean(str(key), known, quiet=True)
            if hint:
                yield (*where, str(key)), f"unknown key {key!r}{hint}"


def _did_you_mean(name: str, known: Collection[str], quiet: bool = False) -> str:
    """` (did you mean 'x'?)`, ignoring case; without a close name, the choices (or nothing)."""
    by_lower = {choice.lower(): choice for choice in known}
    close = difflib.get_close_matches(name.lower(), by_lower, n=1, cutoff=0.75)
    if close:
        return f" (did you mean {by_lower[close[0]]!r}?)"
    return "" if quiet else f" (expected one of: {', '.join(sorted(known))})"


def _problem(path: Path, lines: LineIndex, item: Any) -> Problem:
    location = tuple(part for part in item["loc"] if not str(part).startswith("function-"))
    message = str(item["msg"]).removeprefix("Value error, ")
    if item["type"] == "extra_forbidden":
        section = SECTIONS.get(location[:-1])
        known = section.model_fields if section is not None else {}
        message = f"unknown key {location[-1]!r}{_did_you_mean(str(location[-1]), known)}"
        return Problem(str(path), lines.line(location, key=True), _place(location), message)
    if (
        item["type"] not in ("value_error", "missing")
        and "input" in item
        and ", got" not in message
    ):
        message += f", got {_shown(item['input'])}"
    return Problem(str(path), lines.line(location), _place(location), message)


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def hook_name(handler: Handler) -> str:
    if handler.name:
        return handler.name
    text = " ".join([handler.command or "", *(handler.args or [])]).strip()
    if len(text) <= 60:
        return text
    # Long: its words with directories dropped (`/opt/venv/bin/python /srv/hooks/check.py` is
    # `python check.py`), cut at a word, so the program and what it runs lead the name.
    import shlex

    try:
        words = shlex.split(text)
    except ValueError:  # unbalanced quotes: CC's shell will say so; name it by its words
        words = text.split()
    short = " ".join(os.path.basename(word) if "/" in word[1:] else word for word in words)
    if len(short) <= 60:
        return short
    return short[: short.rfind(" ", 0, 58) if " " in short[:58] else 58].rstrip() + " …"


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


# What a project or local layer may only tighten: for each setting, a key that is larger for
# the stricter value. A stricter setting only turns a verdict into a stronger one: fewer hooks
# allowed to match (over the cap, the call is denied), `approval: none` (an ask is a deny), a
# shorter deadline, failures that block. The per-hook defaults (timeout, on_failure) of a
# project or local layer apply to its own hooks and those of the layers below it, never to a
# wider layer's: a shorter timeout could turn a wider hook's late deny into an ignored failure.
TIGHTEN: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("defaults", "timeout"): lambda value: -value,
    ("defaults", "on_failure"): lambda value: value == "block",
    ("defaults", "approval"): lambda value: value == "none",
    ("defaults", "max_hooks"): lambda value: -value,
    ("defaults", "deadline"): lambda value: -value,
    ("audit", "enabled"): bool,
    ("audit", "max_bytes"): lambda value: value,  # a smaller log forgets sooner
    ("audit", "keep"): lambda value: value,
    ("goals", "enabled"): bool,
    ("goals", "blocked_min_rounds"): lambda value: value,
    ("goals", "default_max_rounds"): lambda value: -value,
}
# What a project or local layer may not change at all: the audit's place (it would move the
# record out of sight) and the output cap, which applies to every hook of a call (a larger one
# lets an answer through that failed, a smaller one fails a wider hook whose failure is ignored).
FIXED = frozenset({("audit", "path"), ("defaults", "output_cap")})
SECTION_MODELS: dict[str, type[BaseModel]] = {"defaults": Defaults, "audit": Audit, "goals": Goals}
_BUILT_IN = "ccbridge's default"


@dataclass
class _Layered:
    """The settings of a stack of layers, and the loosenings it refused (as warnings)."""

    sections: dict[str, dict[str, Any]]
    hook_defaults: list[tuple[float, str]]  # (timeout, on_failure) for each layer's hooks
    set_by: dict[tuple[str, str], str]
    self_protection_off_in: str | None
    warnings: list[str]


def _layered(validated: Sequence[tuple[Source, BridgeConfig, LineIndex]], wide: int) -> _Layered:
    """Field by field, a more specific layer overrides what a less specific one set; from the
    first of the project and local layers on (index `wide`), only where it tightens."""
    sections = {name: model().model_dump() for name, model in SECTION_MODELS.items()}
    set_by: dict[tuple[str, str], str] = {}
    protected, off_in = True, None
    warnings: list[str] = []
    per_layer: list[tuple[float, str]] = []
    for index, (source, config, lines) in enumerate(validated):
        narrow = index >= wide
        for section in sections:
            model = getattr(config, section)
            for name in sorted(model.model_fields_set):
                value, current = getattr(model, name), sections[section][name]
                where = (section, name)
                if narrow and value != current:
                    key = TIGHTEN.get(where)
                    if where in FIXED or (key is not None and key(value) < key(current)):
                        warnings.append(
                            f"{source.path}:{lines.line(where) or 1}: {section}.{name}: "
                            f"{value!r} would loosen {current!r} (set by "
                            f"{set_by.get(where, _BUILT_IN)}), and a project or local layer "
                            f"may only tighten it: {current!r} holds"
                        )
                        continue
                sections[section][name] = value
                set_by[where] = str(source.path)
        per_layer.append((sections["defaults"]["timeout"], sections["defaults"]["on_failure"]))
        if "self_protection" not in config.model_fields_set:
            continue
        if config.self_protection:
            # A project or local layer does not undo the user's own switch-off: the user chose
            # the boundary there (Claude Code's sandbox, say), and `true` is already the default.
            if not narrow:
                protected, off_in = True, None
        elif not narrow:
            protected, off_in = False, str(source.path)
        elif protected:
            warnings.append(
                f"{source.path}:{lines.line(('self_protection',)) or 1}: self_protection: false "
                "is refused: a project or local layer cannot switch self-protection off (only "
                "~/.claude/ccbridge.yaml or an explicit --config or $CCBRIDGE_CONFIG file can); "
                "it stays on"
            )
    # The wide layers' hooks run as all of them say together; each narrower layer's, as the
    # layers up to it say.
    widest = per_layer[min(wide, len(per_layer)) - 1] if wide else None
    hook_defaults = [
        widest if widest is not None and index < wide else own
        for index, own in enumerate(per_layer)
    ]
    return _Layered(sections, hook_defaults, set_by, off_in, warnings)


def compile_sources(sources: Iterable[Source], key: str, wide: int = 1) -> CompiledConfig:
    """The compiled config of these layers, least specific first; the first `wide` of them may
    loosen what ccbridge's defaults say (see bridge.paths.wide_layers)."""
    sources = list(sources)
    if not sources:
        return CompiledConfig(digest=key)
    files = tuple(str(source.path) for source in sources)
    try:
        return _compile(sources, key, wide)
    except ConfigError as error:
        return CompiledConfig(files=files, digest=key, error=str(error))


def _compile(sources: list[Source], key: str, wide: int) -> CompiledConfig:
    validated: list[tuple[Source, BridgeConfig, LineIndex]] = []
    for source in sources:
        if source.content is None:
            raise ConfigError(
                f"{source.path}: {source.problem or 'config file not found or not readable'}"
            )
        config, lines = validate(Path(source.path), source.content)
        validated.append((source, config, lines))
    layered = _layered(validated, wide)
    defaults = layered.sections["defaults"]
    hooks: dict[str, list[HookSpec]] = {}
    policies: dict[str, list[PolicyRef]] = {kind: [] for kind in POLICY_KINDS}
    for (source, config, lines), (timeout, on_failure) in zip(
        validated, layered.hook_defaults, strict=True
    ):
        order = sum(len(specs) for specs in hooks.values())
        for spec in _specs(Path(source.path), config, lines, order, timeout, on_failure):
            hooks.setdefault(spec.event, []).append(spec)
        for kind in POLICY_KINDS:
            for i, ref in enumerate(getattr(config.policies, kind)):
                line = lines.line(("policies", kind, i))
                policies[kind].append(
                    PolicyRef(
                        _absolute_ref(ref, Path(source.path).parent),
                        f"{source.path}:{line}" if line else str(source.path),
                    )
                )
    audit = layered.sections["audit"]
    if audit["path"]:  # relative to the layer that set it
        folder = Path(layered.set_by[("audit", "path")]).parent
        audit["path"] = str((folder / Path(audit["path"]).expanduser()).resolve())
    return CompiledConfig(
        files=tuple(str(source.path) for source in sources),
        digest=key,
        hooks={event: tuple(specs) for event, specs in hooks.items()},
        approval=defaults["approval"],
        max_hooks=defaults["max_hooks"],
        output_cap=defaults["output_cap"],
        deadline=defaults["deadline"],
        policies={kind: tuple(refs) for kind, refs in policies.items()},
        audit=AuditConfig(**audit),
        goals=GoalConfig(**layered.sections["goals"]),
        self_protection_off_in=layered.self_protection_off_in,
        warnings=tuple(layered.warnings),
    )
