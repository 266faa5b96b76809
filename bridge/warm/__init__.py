"""The warm path: one ccbridge process per Claude Code process answers its tool calls, so that a
call does not pay a Python start (about 30 ms of the 45 a call cost; docs/performance.md).

How a call goes (`client.py` writes the shell that does it into the registration):
1. The registration, run by Claude Code under `sh -c`, finds `<state>/warm/<its parent pid>`, a
   Unix socket, and hands the event to it with `socat`.
2. The server (`server.py`) has children waiting for connections (one serves calls one after
   another, until a call loads code that is not ccbridge's). The child answers only a client whose
   process chain is `socat`, then shells, then the very Claude Code process the server was
   started for (`peer.py`): the shape Claude Code's hook runner makes, and one that no command
   of the model's Bash tool has (its shell carries the tool's marks, and inside the sandbox
   every process carries the sandbox's). It takes that hook process's environment, working
   directory and umask, stands in for it in the goal module's process checks, and judges the
   event exactly as `ccbridge run` does, in the same code.
3. Anything else falls back to `ccbridge run`, which judges the same event from scratch: no
   socket (the session's first call, which starts a server: `start.py`), no `socat`, a refusal
   (`F`: the chain is not a hook's, too many calls at once), or the server gone before it said
   a word. An answer that arrives cut or garbled is a refusal of the call.

What the warm path trusts is the socket's directory: inside Claude Code's sandbox the state
directory is read-only (the wall), so no command of the model's can put a socket of its own
there. Without the wall the model can, as it can rewrite Claude Code's settings: that is what
the sandbox is for (docs/guarantees.md).
"""
