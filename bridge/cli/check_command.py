"""`ccbridge check`: validate every config layer."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bridge.cli.output import mark, project_of, say
from bridge.commands.check import fix_for

if TYPE_CHECKING:
    from bridge.commands.doctor import Finding


def broken_settings(env: Mapping[str, str], project: Path) -> list[Finding]:
    """The Claude Code settings files (user, project, local, managed) that cannot be read:
    Claude Code ignores such a file whole, ccbridge's registration and wall with it."""
    from bridge.commands.doctor import check_settings_files
    from bridge.commands.mods import managed_files
    from bridge.paths import settings_files

    files = [Path(file) for file in settings_files(env, project)] + managed_files(env)
    return list(check_settings_files(files))


@click.command()
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Check only this file instead of every layer.",
)
def check(config: str | None) -> None:
    """Validate ccbridge's config: every layer, every native policy.

    Each problem is printed with its file and line, and a fix. Exits 1 when there is a
    problem, 0 when every file is valid (or there is none).

    \b
    Layers checked (those that exist): ~/.claude/ccbridge.yaml,
    <project>/.claude/ccbridge.yaml, <project>/.claude/ccbridge.local.yaml
    (or only $CCBRIDGE_CONFIG, or only --config FILE). Without --config, Claude Code's
    settings files too (user, project, local, managed): one it cannot read (a merge conflict
    left in it, a missing comma) it ignores whole, ccbridge's registration with it.

    \b
    Example:
      ccbridge check
      ccbridge check --config ./team-hooks.yaml
    """
    from bridge.commands.doctor import config_problems
    from bridge.paths import config_layers, find_config

    env = os.environ
    project = project_of(env)
    paths = [Path(path) for path in find_config(config, env, project)[0]]
    if config and not Path(config).is_file():
        raise click.ClickException(f"{config}: no such file")
    broken = [] if config else broken_settings(env, project)
    for finding in broken:
        say(f"{mark('fail')}  {finding.message}")
    if not paths:
        looked = ", ".join(str(path) for path in config_layers(env, project))
        say(f"{mark('info')}  no config files (looked for {looked}); ccbridge runs with defaults")
        if broken:
            raise click.ClickException(f"{len(broken)} Claude Code settings file(s) cannot be read")
        return
    problems = config_problems(paths, env, project, config)
    for problem in problems:
        say(f"{mark('warn' if problem.warning else 'fail')}  {problem}")
        fix = fix_for(problem.message)
        if fix:
            say(f"      fix: {fix}")
    failing = [problem for problem in problems if not problem.warning]
    if broken and not failing:
        raise click.ClickException(f"{len(broken)} Claude Code settings file(s) cannot be read")
    if not failing and config is None:
        from bridge.commands.doctor import never_sent, never_sent_message
        from bridge.commands.mods import managed_files
        from bridge.paths import settings_files

        settings = [Path(file) for file in settings_files(env, project)] + managed_files(env)
        for event, where in never_sent(settings, paths).items():
            say(f"{mark('warn')}  {never_sent_message(event, where)}")
    if failing:
        files = len({problem.file for problem in failing})
        raise click.ClickException(f"{len(failing)} problem(s) in {files} file(s)")
    for path in paths:
        say(f"{mark('ok')}  {path}")
