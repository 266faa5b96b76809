"""`ccbridge check`: validate every config layer."""

from __future__ import annotations

import os
from pathlib import Path

import click

from bridge.cli.output import mark, project_of, say

# Fixes for pydantic's own messages; ccbridge's messages already say what to do.
_FIXES = (
    ("valid dictionary", "write a mapping (key: value lines) here"),
    ("valid list", "write a list (`- item` lines, or [a, b]) here"),
    ("valid string", "write text here (quote it if YAML reads it as something else)"),
    ("valid integer", "write a whole number here"),
    ("valid number", "write a number (seconds) here"),
    ("valid boolean", "write true or false here"),
    ("less than or equal to", "use a smaller value (a sub-hook's timeout is capped at 50 s)"),
    ("greater than", "use a larger value"),
    ("Input should be", "use one of the values named"),  # a choice: the values are in the text
    ("Field required", "add the missing key"),
    (
        "regular expression",
        "matchers are regexes unless they are plain names joined by `|`; "
        "check brackets and escapes",
    ),
    ("not valid YAML", "check the indentation and quoting around that line"),
    ("not valid JSON", "check commas and quotes around that line"),
    ("cannot load policy", "check the module path or file and the function name"),
    ("cannot read", "check the file exists and is readable"),
    (
        "may only tighten",
        "loosen it in ~/.claude/ccbridge.yaml (or a file named with --config); here, remove it",
    ),
    ("cannot switch self-protection off", "remove the line; set it in ~/.claude/ccbridge.yaml"),
)


def fix_for(message: str) -> str | None:
    if "(" in message and message.rstrip().endswith(")"):
        return None  # the message carries its own fix in brackets
    for needle, fix in _FIXES:
        if needle in message:
            return fix
    return "see `ccbridge schema` for what this place accepts"


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
    (or only $CCBRIDGE_CONFIG, or only --config FILE).

    \b
    Example:
      ccbridge check
      ccbridge check --config ./team-hooks.yaml
    """
    from bridge.doctor import config_problems
    from bridge.paths import config_layers, find_config

    env = os.environ
    project = project_of(env)
    paths = [Path(path) for path in find_config(config, env, project)[0]]
    if config and not Path(config).is_file():
        raise click.ClickException(f"{config}: no such file")
    if not paths:
        looked = ", ".join(str(path) for path in config_layers(env, project))
        say(f"{mark('info')}  no config files (looked for {looked}); ccbridge runs with defaults")
        return
    problems = config_problems(paths, env, project, config)
    for problem in problems:
        say(f"{mark('warn' if problem.warning else 'fail')}  {problem}")
        fix = fix_for(problem.message)
        if fix:
            say(f"      fix: {fix}")
    failing = [problem for problem in problems if not problem.warning]
    if failing:
        files = len({problem.file for problem in failing})
        raise click.ClickException(f"{len(failing)} problem(s) in {files} file(s)")
    for path in paths:
        say(f"{mark('ok')}  {path}")
