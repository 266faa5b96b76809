"""An install's plan (each file's bytes before and after), written with a backup of what it
replaced: the originals of both files are kept in the state directory, so uninstall can put
them back exactly when nobody has edited them since."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from bridge.commands.settings_json import InstallError, new_groups_only
from bridge.paths import state_dir


@dataclass
class Plan:
    settings: Path
    config: Path
    settings_before: bytes | None
    settings_after: bytes | None
    config_before: bytes | None
    config_after: bytes | None
    moved: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    wall: dict[str, Any] = field(default_factory=dict)  # what put_up_wall added
    mode: int | None = None  # the settings file's permissions, where they matter (a hook file)

    @property
    def changed(self) -> bool:
        return (
            self.settings_after != self.settings_before or self.config_after != self.config_before
        )


def sha(content: bytes | None) -> str | None:
    return hashlib.sha256(content).hexdigest() if content is not None else None


def apply(plan: Plan) -> None:
    if plan.config_after != plan.config_before:
        write_file(plan.config, plan.config_after)
    if plan.settings_after != plan.settings_before:
        write_file(plan.settings, plan.settings_after, plan.mode)


def write_file(path: Path, content: bytes | None, mode: int | None = None) -> None:
    """Atomically replace (or, for None, remove) a file, keeping its permissions; with `mode`,
    with that mode from the start (nothing readable by others even for a moment)."""
    if content is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.ccbridge-{os.getpid()}.tmp")
    if mode is not None:
        temporary.unlink(missing_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
        os.chmod(temporary, mode)  # whatever the umask
    else:
        temporary.write_bytes(content)
        with contextlib.suppress(FileNotFoundError):  # a new file keeps the default mode
            os.chmod(temporary, path.stat().st_mode & 0o7777)
    os.replace(temporary, path)


def write_with_backup(env: Mapping[str, str], plan: Plan) -> None:
    """Keep the originals of the plan's files (so that uninstall can put them back), then write
    it. Any agent's settings file, and the local copy beside a project install, go this way."""
    backup = backup_file(env, plan.settings)
    write_backup(backup, next_backup(load_backup(backup), plan))
    apply(plan)


def backup_file(env: Mapping[str, str], settings: Path) -> Path:
    key = hashlib.sha256(str(settings).encode()).hexdigest()[:24]
    return Path(state_dir(env)) / "installs" / f"{key}.json"


def _encode(content: bytes | None) -> str | None:
    return base64.b64encode(content).decode() if content is not None else None


def _decode(text: str | None) -> bytes | None:
    return base64.b64decode(text) if text is not None else None


@dataclass
class Backup:
    settings: Path
    config: Path
    settings_original: bytes | None
    config_original: bytes | None
    settings_installed: str | None  # sha256 of what install wrote
    config_installed: str | None
    moved: dict[str, list[Any]]
    _: KW_ONLY
    exact: bool  # the originals are still the whole truth: no edits between two installs
    config_edited: bool = False  # the user edited the config between two installs: keep it
    wall: dict[str, Any] = field(default_factory=dict)  # what install added for the sandbox

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": str(self.settings),
            "config": str(self.config),
            "settings_original": _encode(self.settings_original),
            "config_original": _encode(self.config_original),
            "settings_installed": self.settings_installed,
            "config_installed": self.config_installed,
            "moved": self.moved,
            "exact": self.exact,
            "config_edited": self.config_edited,
            "wall": self.wall,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Backup:
        return cls(
            Path(data["settings"]),
            Path(data["config"]),
            _decode(data["settings_original"]),
            _decode(data["config_original"]),
            data["settings_installed"],
            data["config_installed"],
            dict(data["moved"]),
            exact=bool(data["exact"]),
            config_edited=bool(data.get("config_edited", False)),
            wall=dict(data.get("wall") or {}),
        )


def load_backup(path: Path) -> Backup | None:
    try:
        return Backup.from_json(json.loads(path.read_bytes()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InstallError(
            f"{path}: the install backup is unreadable ({error}); remove it to "
            "uninstall by taking the registration out only"
        ) from None


def _merged_wall(previous: Mapping[str, Any], added: Mapping[str, Any]) -> dict[str, Any]:
    """What two installs added together: the first one's scalars' old values win."""
    if not previous:
        return dict(added)
    if not added:
        return dict(previous)
    lists = {key: list(value) for key, value in previous.get("lists", {}).items()}
    for key, value in added.get("lists", {}).items():
        lists[key] = [*lists.get(key, []), *(v for v in value if v not in lists.get(key, []))]
    return {
        "created": [*previous.get("created", []), *added.get("created", [])],
        "scalars": {**added.get("scalars", {}), **previous.get("scalars", {})},
        "lists": lists,
    }


def next_backup(previous: Backup | None, plan: Plan) -> Backup:
    installed = (sha(plan.settings_after), sha(plan.config_after))
    if previous is None:
        return Backup(
            plan.settings,
            plan.config,
            plan.settings_before,
            plan.config_before,
            *installed,
            {k: list(v) for k, v in plan.moved.items()},
            exact=True,
            wall=dict(plan.wall),
        )
    config_untouched = previous.config_installed == sha(plan.config_before)
    # A settings file put back as it was (`git checkout`) is the original again, not an edit.
    settings_untouched = previous.settings_installed == sha(plan.settings_before) or (
        plan.settings_before == previous.settings_original
    )
    untouched = settings_untouched and config_untouched
    moved = {k: list(v) for k, v in previous.moved.items()}
    for event, groups in plan.moved.items():
        moved[event] = [*moved.get(event, []), *new_groups_only(groups, moved.get(event))]
    return Backup(
        previous.settings,
        previous.config,
        previous.settings_original,
        previous.config_original,
        *installed,
        moved,
        exact=previous.exact and untouched,
        config_edited=previous.config_edited or not config_untouched,
        wall=_merged_wall(previous.wall, plan.wall),
    )


def write_backup(path: Path, backup: Backup | None) -> None:
    if backup is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # the originals of both files: private, as every file in the state directory
    write_file(path, json.dumps(backup.to_json(), indent=2).encode(), mode=0o600)
