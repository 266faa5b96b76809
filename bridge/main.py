"""The `ccbridge` command. `ccbridge run` takes a lean path (bridge.hookcall) that never imports
click, pydantic or PyYAML when the compiled config is cached; every other command goes through
the click CLI."""

import io
import os
import sys

from bridge import CcbridgeError
from bridge.hookcall import emit, hint_on_terminal, quietly, run
from bridge.wire import HOSTS, answer

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Sequence
    from typing import IO, NoReturn

RUN_USAGE = "usage: ccbridge run [--config FILE] [--host NAME]"


def parse_run_args(args: "Sequence[str]") -> "tuple[str | None, str | None]":
    """(config file, host) of `ccbridge run`; None where not given. A bad argument raises
    CcbridgeError (no class of its own: a class costs every hook call its creation)."""
    config: str | None = None
    host: str | None = None
    items = list(args)
    while items:
        item = items.pop(0)
        if item == "--config" and items:
            config = items.pop(0)
        elif item.startswith("--config="):
            config = item.removeprefix("--config=")
        elif item == "--host" and items:
            host = items.pop(0)
        elif item.startswith("--host="):
            host = item.removeprefix("--host=")
        else:
            raise CcbridgeError(f"unexpected argument {item!r} ({RUN_USAGE})")
    if config == "":
        raise CcbridgeError(f"--config needs a file ({RUN_USAGE})")
    if host is not None and host not in HOSTS:
        raise CcbridgeError(f"--host {host!r} is not one of {', '.join(HOSTS)} ({RUN_USAGE})")
    return config, host


def _streams() -> "tuple[IO[bytes], IO[bytes], IO[str]]":
    """Standard streams, even when the caller closed them (Python then sets them to None): a
    closed stdin reads as empty, which denies; closed outputs write nowhere."""
    stdin = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
    stdout = sys.stdout.buffer if sys.stdout is not None else io.BytesIO()
    stderr = sys.stderr if sys.stderr is not None else io.StringIO()
    return stdin, stdout, stderr


def exit_at_once(code: int) -> "NoReturn":
    """End the process without tearing the interpreter down. Finalising the hundred-odd modules
    that site and ccbridge imported costs some 6 ms of every hook call, and nothing is left to
    do: the answer is written, the audit line went out with os.write, sub-hooks are reaped."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None: the caller closed it
            quietly(stream.flush)  # a closed pipe: nobody reads
    os._exit(code)


def _start_warm_server(named: str) -> None:
    """After the answer is out; a server that cannot start leaves calls on this path."""
    try:
        from bridge.warm.start import WARM_ENV, start_server, wanted

        env = {**os.environ, WARM_ENV: named}
        if wanted(env):
            start_server(env)
    except Exception:
        pass


def main(argv: "Sequence[str] | None" = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["run"] and not {"--help", "-h"} & set(args):
        stdin, stdout, stderr = _streams()
        try:
            config, host = parse_run_args(args[1:])
        except CcbridgeError as problem:
            denial = answer.deny(f"ccbridge: {problem}")
            emit(denial, stdout, stderr)
            return denial.exit_code
        hint_on_terminal(stdin, stderr, "run")
        # The warm path's client found no server and asks for one; not for the sub-hooks to see.
        warm = os.environ.pop("CCBRIDGE_WARM", None)
        code = run(config, stdin, stdout, stderr, os.environ, host)
        if warm is not None:
            _start_warm_server(warm)
        if argv is None:  # the program itself (console script, python -m bridge): not a caller
            exit_at_once(code)
        return code
    if args[:1] == ["warm-serve"]:
        from bridge.warm.server import main as serve

        return serve(args[1:])
    import gc

    gc.enable()  # the launcher turned it off for hook calls; other commands may run long
    from bridge.cli import cli

    cli.main(args=args, prog_name="ccbridge")  # click exits with the command's status
    return 0
