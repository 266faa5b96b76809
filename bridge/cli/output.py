"""Shared output helpers for the commands: colour only on a terminal, diffs, the project."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path

import click

MARKS = {
    "ok": ("ok", "green"),
    "warn": ("warn", "yellow"),
    "fail": ("FAIL", "red"),
    "info": ("--", "cyan"),
}


def say(text: str = "", err: bool = False) -> None:
    """click strips the styling when the stream is not a terminal (color=None)."""
    click.echo(text, err=err, color=None)


def mark(level: str) -> str:
    word, colour = MARKS[level]
    return click.style(f"{word:>4}", fg=colour, bold=level == "fail")


def dim(text: str) -> str:
    return click.style(text, dim=True)


def project_of(env: Mapping[str, str]) -> Path:
    """The project a command works on: $CLAUDE_PROJECT_DIR, else the current directory."""
    return Path(env.get("CLAUDE_PROJECT_DIR") or os.getcwd()).resolve()


def file_diff(path: Path, before: bytes | None, after: bytes | None) -> str:
    """A coloured unified diff of one file; empty when nothing changes."""
    if before == after:
        return ""
    old = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(
        old,
        new,
        f"{path}" if before is not None else "/dev/null",
        f"{path}" if after is not None else "/dev/null",
    ):
        text = line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        colour = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1])
        lines.append(
            click.style(text, fg=colour) if colour and line[:3] not in ("+++", "---") else text
        )
    return "".join(lines).rstrip("\n")


# `install|uninstall|doctor --host`: the agents ccbridge registers itself with
# (bridge.commands.agents.AGENTS, and Claude Code).
AGENT_HOSTS = ("claude-code", "cline", "codex", "copilot", "gemini", "opencode", "qwen")
