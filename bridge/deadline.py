"""ccbridge's own time bound: every call answers before Claude Code's hook timeout.

A real-time interval timer (SIGALRM) interrupts whatever the call is doing when the deadline
passes: Python code (an endless policy loop), and blocking system calls (a read of a FIFO, a
`poll` for sub-hooks that never finish), which Python retries after a handler unless the handler
raises. The handler raises `Expired`, a BaseException so that a policy's `except Exception`
cannot swallow it; the sub-hook runner's cleanup kills every hook's process group on the way
out, and the caller denies the call with a reason and audits it.

The timer then keeps running in a second stage: if the answer is not out `GRACE` seconds later
(the exception was swallowed by a bare `except:`, or the cleanup itself hung), the handler
writes the fail-closed answer, tries the audit record for at most `LAST` seconds more, and
ends the process. C code that neither returns to the interpreter nor fails its system calls
with EINTR (a C library that retries them) is beyond a signal handler: the size caps on what
ccbridge reads bound that work instead.

`_signal`, not `signal`: the latter imports `enum`, which every hook call would pay for.
"""

import os
import time

from bridge.config.compiled import DEFAULT_DEADLINE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Callable
    from types import FrameType
    from typing import Any
else:  # not `signal`: see bridge.subhooks.spawn
    import _signal

# After the deadline (or after the judgement, once it is over), how long the answer and the
# audit record may take before the process answers and ends without them.
GRACE = 3.0
LAST = 1.5


class Expired(BaseException):
    """The call's deadline passed while it was being judged."""

    def __init__(self, seconds: float, doing: str) -> None:
        super().__init__(f"no answer within its {seconds:g} s deadline ({doing})")
        self.seconds, self.doing = seconds, doing


class _Deadline:
    """The call's one deadline: `deadline.arm(...)` and the rest, as the call sites read them."""

    def __init__(self) -> None:
        self.started = 0.0
        self.seconds = DEFAULT_DEADLINE
        self.stage = 0  # 0: judging (raise); 1: answering (hard stop); 2: stopping; -1: off
        self.exit_code = 2  # of the hard stop's answer, once it is written
        self.hard_stop: Callable[[str], None] | None = None
        self.previous: Any = None  # the SIGALRM handler before ours
        # How the process ends after a hard stop: a warm ccbridge's child sends its client the
        # answer first (bridge.warm.server).
        self.end: Callable[[int], Any] = os._exit

    def arm(self, started: float, seconds: float, hard_stop: "Callable[[str], None]") -> bool:
        """Start the deadline, `seconds` after `started` (time.monotonic). False when no timer
        can be set (not the main thread): the call then runs without one."""
        try:
            self.previous = _signal.signal(_signal.SIGALRM, _fired)
        except (ValueError, AttributeError, OSError):
            return False
        self.started, self.seconds, self.stage, self.hard_stop = started, seconds, 0, hard_stop
        _set(self.started + seconds - time.monotonic())
        return True

    def shorten(self, seconds: float) -> None:
        """The config's deadline, counted from the same start; it may only come sooner."""
        if self.stage != 0 or seconds >= self.seconds:
            return
        self.seconds = seconds
        _set(self.started + seconds - time.monotonic())

    def judged(self) -> None:
        """The judgement is over: what is left of the deadline, plus GRACE, bounds the answer."""
        if self.stage != 0:
            return
        self.stage = 1
        _set(max(self.started + self.seconds - time.monotonic(), 0.0) + GRACE)

    def disarm(self) -> None:
        if self.stage == -1:
            return
        self.stage = -1
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        previous = self.previous
        _signal.signal(_signal.SIGALRM, previous if previous is not None else _signal.SIG_DFL)

    def answered(self, exit_code: int) -> None:
        """The hard stop wrote its answer: the process ends with this code, whatever follows."""
        self.exit_code = exit_code


# One object, not a class of functions around it: each class costs every hook call its making.
deadline = _Deadline()


def _set(seconds: float) -> None:
    _signal.setitimer(_signal.ITIMER_REAL, max(seconds, 0.001))


def _fired(_signum: int, frame: "FrameType | None") -> None:
    clock = deadline
    if clock.stage == 0:
        clock.stage = 1
        _set(GRACE)
        raise Expired(clock.seconds, doing(frame))
    if clock.stage == 1 and clock.hard_stop is not None:
        clock.stage = 2
        _set(LAST)
        clock.hard_stop(f"no answer {clock.seconds:g} s + {GRACE:g} s after it started")
        clock.end(clock.exit_code)
    if clock.stage == 2:  # the hard stop's own audit record hung
        clock.end(clock.exit_code)


def doing(frame: "FrameType | None") -> str:
    """What the call was at when the deadline passed: the sub-hooks, or the innermost function."""
    innermost = frame
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("subhooks", "runner.py")):
            return "while its sub-hooks ran"
        frame = frame.f_back
    if innermost is None:
        return "while judging"
    code = innermost.f_code
    return f"in {code.co_name} at {os.path.basename(code.co_filename)}:{innermost.f_lineno}"
