"""Which deny holds beside a plugin's hooks module (a mod) that answers tool.check: ccbridge
registered in project settings and in a managed-settings.d drop-in, on the real client. The
table in docs/e2e-matrix.md ("ccbridge beside mods") and docs/fleet.md promise these rows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .harness import (
    ccbridge_executable,
    claude_binary,
    claude_cache,
    pinned_versions,
    run_claude,
    version_tuple,
)
from .hook_scripts import MARKER, TOUCH_MARKER, command_handler, hooks_block
from .model_stub import Turn

# Mods exist from 2.1.287 and onFailure from 2.1.295 (the drop-in requires it): older pinned
# versions have no row here.
MOD_VERSIONS = [v for v in pinned_versions() if version_tuple(v) >= (2, 1, 295)]
DOC = Path(__file__).resolve().parents[2] / "docs" / "e2e-matrix.md"

MODS = {
    # the control: a mod CC loads at all shows here as a deny of its own
    "deny": 'on("tool.check", ($, e, next) => ({ decision: "deny", reason: "mod-deny-5c1" }));',
    "allow": 'on("tool.check", ($, e, next) => ({ decision: "allow" }));',
    "throw": 'on("tool.check", ($, e, next) => { throw new Error("mod-threw-7d2"); });',
}
# (registration, mod) -> (does the command run, whose reason reaches the model). Measured on
# 2.1.332; the table of docs/e2e-matrix.md "ccbridge beside mods".
EXPECTED: dict[tuple[str, str | None], tuple[bool, str | None]] = {
    ("project", None): (False, "ccbridge-deny-9f3"),
    ("project", "deny"): (False, "mod-deny-5c1"),
    ("project", "allow"): (True, None),  # the mod's allow overrides ccbridge's deny
    ("project", "throw"): (False, "ccbridge-deny-9f3"),
    ("managed", None): (False, "ccbridge-deny-9f3"),
    ("managed", "deny"): (False, "ccbridge-deny-9f3"),  # managed hooks run before any mod
    ("managed", "allow"): (False, "ccbridge-deny-9f3"),
    ("managed", "throw"): (False, "ccbridge-deny-9f3"),
}


def plugin(root: Path, mod: str) -> Path:
    directory = root / f"mod-{mod}"
    (directory / ".claude-plugin").mkdir(parents=True)
    (directory / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": f"mod-{mod}"}))
    (directory / "hooks").mkdir()
    (directory / "hooks" / "hooks.json").write_text(json.dumps({"modules": ["./register.js"]}))
    (directory / "hooks" / "register.js").write_text(
        f"export function register(on) {{\n  {MODS[mod]}\n}}\n"
    )
    return directory


# The build reads managed settings only from the system folder (the variable naming another is
# not honoured by the release binary), so the managed case writes a drop-in there for the length
# of one run. Its hook answers only the run that carries this test's token: any other CC on the
# machine meanwhile sees a hook that exits 0 and says nothing.
SYSTEM = Path("/etc/claude-code")


@contextmanager
def system_drop_in(name: str, data: dict[str, object]) -> Iterator[None]:
    created = [path for path in (SYSTEM, SYSTEM / "managed-settings.d") if not path.exists()]
    try:
        for path in created:
            path.mkdir(mode=0o755)
    except PermissionError:
        pytest.skip(f"cannot write {SYSTEM}: the managed case needs root")
    drop_in = SYSTEM / "managed-settings.d" / name
    try:
        drop_in.write_text(json.dumps(data))
        yield
    finally:
        drop_in.unlink(missing_ok=True)
        for path in reversed(created):
            shutil.rmtree(path, ignore_errors=True)


def measure(claude: Path, tmp_path: Path, registration: str, mod: str | None) -> dict[str, object]:
    project = tmp_path / "project"
    project.mkdir()
    config = tmp_path / "ccbridge.yaml"
    config.write_text(
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        "        - {type: command, command: 'echo ccbridge-deny-9f3 >&2; exit 2', name: wall}\n"
    )
    settings: dict[str, object] = {"permissions": {"allow": ["Bash(touch *)"]}}
    env = {"CCBRIDGE_CONFIG": str(config), "CCBRIDGE_STATE_DIR": str(tmp_path / "state")}
    entry = command_handler(ccbridge_executable(), timeout=60, onFailure="block")
    entry["command"] += " run"
    if registration == "project":
        settings["hooks"] = hooks_block("PreToolUse", entry)
    args = ["--plugin-dir", str(plugin(tmp_path / "plugins", mod))] if mod else []
    script = [Turn.bash(TOUCH_MARKER)]
    if registration == "project":
        result = run_claude(claude, project, settings, script, env=env, args=args)
    else:
        token = f"{os.getpid()}-{tmp_path.name}"
        # the very drop-in `ccbridge install --managed` writes, its command behind the gate
        staged = tmp_path / "staged"
        subprocess.run(
            [ccbridge_executable(), "install", "--managed", "--managed-dir", str(staged)],
            check=True,
            capture_output=True,
        )
        drop_in = json.loads((staged / "ccbridge.json").read_text())
        gate = tmp_path / "gate.sh"
        gate.write_text(
            f'#!/bin/sh\n[ "$CCBRIDGE_E2E_MANAGED" = "{token}" ] || {{ cat >/dev/null; exit 0; }}\n'
            f'exec {ccbridge_executable()} "$@"\n'
        )
        gate.chmod(0o755)
        env["CCBRIDGE_E2E_MANAGED"] = token
        for groups in drop_in["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    assert handler["args"] == ["run"]  # exec form: CC must pass the args
                    handler["command"] = str(gate)
        with system_drop_in(f"zz-ccbridge-e2e-{token}.json", drop_in):
            result = run_claude(claude, project, settings, script, env=env, args=args)
    results = result.requests.tool_results()
    log = tmp_path / "state" / "audit.jsonl"
    exported = (
        subprocess.run(
            [ccbridge_executable(), "audit", "--format", "otlp-json", "--file", str(log)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **env},
        ).stdout
        if log.is_file()
        else ""
    )
    return {
        "tool_use_id": results[0].tool_use_id if results else None,
        "otlp_tool_use_ids": {
            pair["value"]["stringValue"]
            for line in exported.splitlines()
            for logs in json.loads(line)["resourceLogs"]
            for scope in logs["scopeLogs"]
            for row in scope["logRecords"]
            for pair in row["attributes"]
            if pair["key"] == "tool_use_id"
        },
        "ran": (project / MARKER).exists(),
        "content": results[0].content if results else None,
        "audit": (tmp_path / "state" / "audit.jsonl").is_file(),
        "stderr": result.stderr[-400:],
    }


@pytest.mark.e2e
@pytest.mark.parametrize("mod", [None, "deny", "allow", "throw"])
@pytest.mark.parametrize("registration", ["project", "managed"])
@pytest.mark.parametrize("version", MOD_VERSIONS)
def test_which_deny_holds(tmp_path: Path, version: str, registration: str, mod: str | None) -> None:
    claude = claude_binary(version)
    if claude is None:
        pytest.skip(f"Claude Code {version} is not in {claude_cache()}: run scripts/fetch-clients")
    seen = measure(claude, tmp_path, registration, mod)
    ran, reason = EXPECTED[(registration, mod)]
    assert seen["audit"], seen  # ccbridge ran (and recorded its deny) in every row
    assert seen["ran"] is ran, seen
    # the OTLP export keys the call as CC does: the tool_use_id CC sent the model's call
    assert seen["otlp_tool_use_ids"] == {seen["tool_use_id"]}, seen
    if reason is not None:
        assert reason in str(seen["content"]), seen


def test_the_documented_table_is_the_measured_one() -> None:
    text = DOC.read_text(encoding="utf-8").split("## ccbridge beside mods", 1)[1]
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0] in ("project", "managed"):
            mod = {"(no mod)": None, "throws": "throw"}.get(cells[1], cells[1])
            rows[(cells[0], mod)] = cells[2].strip("*") == "ran"
    assert rows == {key: ran for key, (ran, _reason) in EXPECTED.items()}
