"""`ccbridge test`: run fixture cases against the config and compare the answers."""

from __future__ import annotations

import os
from pathlib import Path

import click

from bridge.cli.output import dim, mark, say
from bridge.commands import cases


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--init",
    "init",
    metavar="EVENT",
    help=f"Write a case skeleton for this event type ({', '.join(cases.SKELETONS)}) "
    "into PATH (default ./<event>-case).",
)
@click.option(
    "--update", is_flag=True, help="Record each case's actual answer as its expected.json."
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config for cases without their own config.yaml (default: your layers).",
)
def test(paths: tuple[Path, ...], init: str | None, update: bool, config: Path | None) -> None:
    """Run fixture cases through `ccbridge run` and compare the answers.

    \b
    A case is a directory:
      event.json     the hook event (stdin)
      expected.json  {"stdout": <answer JSON or null>, "exit_code": 0,
                      "stderr_contains": ["..."]}
      config.yaml    optional; without it your own config is used
      setup          optional executable run first in the case's work directory
    `${CASE_DIR}` and `${WORK_DIR}` in event.json and config.yaml are replaced by the
    case's directory and its temporary work directory; in the recorded answer these
    paths, and your home and project (`${HOME}`, `${CLAUDE_PROJECT_DIR}`), are
    placeholders, so a case passes on a teammate's machine. PATHs are cases or directories
    searched for cases; without PATHs, every case in the project: $CLAUDE_PROJECT_DIR, else
    the nearest directory from here up with a .git or a .claude (a case there is a directory
    with both event.json and expected.json, as --init writes them; node_modules and hidden
    directories other than .claude are skipped). Exits 1 when a case fails.

    \b
    Examples:
      ccbridge test --init PreToolUse tests/hooks/deny-rm
      ccbridge test --update tests/hooks/deny-rm   # record the current answer
      ccbridge test tests/hooks
      ccbridge test                                 # every case in the project
    """
    if init is not None:
        if len(paths) > 1:
            raise click.UsageError("--init takes one directory to create")
        target, written = cases.init(init, paths[0] if paths else None)
        for path in written:
            say(f"wrote {path}")
        say(f"edit {written[0].name}, then record the answer: ccbridge test --update {target}")
        return
    selected = cases.select(paths, lambda: cases.project_root(os.environ))
    failed = 0
    for path in selected:
        try:
            case = cases.load_case(path)
        except cases.FixtureError as error:
            failed += 1
            say(f"{mark('fail')}  {path}\n      {error}")
            continue
        outcome = cases.check_case(case, fallback_config=config)
        if update and (not outcome.passed or case.expected is None):
            try:
                cases.record(case, outcome.actual)
            except cases.FixtureError as error:
                failed += 1
                say(f"{mark('fail')}  {case.name}\n      {error}")
                continue
            say(f"{mark('info')}  {case.name} {dim('recorded')}")
        elif outcome.passed:
            say(f"{mark('ok')}  {case.name}")
        else:
            failed += 1
            say(f"{mark('fail')}  {case.name}")
            for line in outcome.mismatches:
                say(f"      {_coloured(line)}")
    say(f"{len(selected) - failed} passed, {failed} failed")
    if failed:
        raise SystemExit(1)


def _coloured(line: str) -> str:
    colour = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1])
    return click.style(line, fg=colour) if colour else line
