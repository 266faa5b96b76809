"""The code a command hands to something that runs it (`tripwire.codes`): self-protection
judges that code as a command line of its own, so finding it exactly is what stops a write
hidden in it. Checked against the programs themselves where this machine has them: the line
really runs the code, and the code found, run alone, does what the line did."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bridge.guards.protect.tripwire import codes
from bridge.shell.syntax import Script, parse

Found = list[tuple[str, str | None]]


def found_in(line: str) -> Found:
    script = parse(line)
    assert isinstance(script, Script), line
    return [code for command in script.commands() for code in codes(command)]


# What each program runs, as its manual says; None where the code is only known when it runs.
EXACT: list[tuple[str, Found]] = [
    # git: options before the verb, config keys that name a program, aliases, verbs with code
    ("git -c alias.x='!touch m' x", [("git -c alias.x", "touch m")]),
    ("git -C . -c core.editor='touch m' commit", [("git -c core.editor", "touch m")]),
    ("git --git-dir x -c core.pager=p log", [("git -c core.pager", "p")]),
    ("git -c Core.Pager=p log", [("git -c Core.Pager", "p")]),
    ("git -c diff.x.textconv=t log", [("git -c diff.x.textconv", "t")]),
    ("git -c filter.x.clean=c add .", [("git -c filter.x.clean", "c")]),
    ("git -c merge.x.driver=d merge b", [("git -c merge.x.driver", "d")]),
    ("git -c sequence.editor=e rebase -i", [("git -c sequence.editor", "e")]),
    ("git -c credential.helper='!h' fetch", [("git -c credential.helper", "h")]),
    ("git -c include.path=f log", [("git -c include.path", "f")]),
    ("git -c core.pager= log", [("git -c core.pager", "")]),
    ("git -c user.name=x log", []),
    ("git config alias.y '!touch m'", [("git -c alias.y", "touch m")]),
    ("git config set core.pager 'touch m'", [("git -c core.pager", "touch m")]),
    ("git config --add core.pager p", [("git -c core.pager", "p")]),
    ("git config --global core.pager", []),
    ("git -c alias.co=checkout co .", [("git alias co", "git checkout .")]),
    ("git -c alias.co=checkout st .", []),
    ("git --config-env=core.pager=X log", [("git --config-env", None)]),
    ("git rebase -x 'touch m' HEAD~1", [("git rebase --exec", "touch m")]),
    ("git rebase --exec='touch m' HEAD~1", [("git rebase --exec", "touch m")]),
    ("git rebase -i HEAD~1", []),
    ("git bisect run touch m", [("git bisect run", "touch m")]),
    ("git bisect start", []),
    ("git bisect run 'touch m'", [("git bisect run", "'touch m'")]),  # each word quoted
    ("git submodule foreach 'touch m; touch n'", [("git submodule foreach", "touch m; touch n")]),
    # more words: the first is shell code, the others its "$@" (git 2.39 does so)
    (
        "git submodule -q foreach --recursive touch 'm n'",
        [("git submodule foreach", "touch 'm n'")],
    ),
    ("git submodule foreach 'touch m' 'n o'", [("git submodule foreach", "touch m 'n o'")]),
    ("git submodule add u foreach", []),
    ("git submodule foreach", []),
    (
        "git filter-branch --tree-filter 'touch m' HEAD",
        [("git filter-branch --tree-filter", "touch m")],
    ),
    ("git difftool -x 'touch m'", [("git difftool --extcmd", "touch m")]),
    ("git difftool --extcmd='touch m'", [("git difftool --extcmd", "touch m")]),
    ("git difftool -y", []),
    # git's options before the verb, each spelling
    ("git -C d -c alias.co=checkout co .", [("git alias co", "git checkout .")]),
    ("git --git-dir g -c alias.co=checkout co .", [("git alias co", "git checkout .")]),
    ("git --work-tree w -c alias.co=checkout co .", [("git alias co", "git checkout .")]),
    ("git -c core.pager=less=x log", [("git -c core.pager", "less=x")]),
    ("git config --add alias.y '!touch m'", [("git -c alias.y", "touch m")]),
    ("git rebase --exec 'touch m' HEAD~1", [("git rebase --exec", "touch m")]),
    ("git difftool --extcmd 'touch m'", [("git difftool --extcmd", "touch m")]),
    ("git log foreach x", []),
    # variables a program runs, and `git -c` through the environment
    ("GIT_SSH_COMMAND='touch m' git fetch", [("$GIT_SSH_COMMAND", "touch m")]),
    ("GIT_CONFIG_VALUE_0='!touch m' git x", [("$GIT_CONFIG_VALUE_0", "touch m")]),
    ("GIT_CONFIG_VALUE_0=$x git x", [("$GIT_CONFIG_VALUE_0", None)]),
    ("FOO_EDITOR=e make", [("$FOO_EDITOR", "e")]),
    ("export GIT_PAGER='p'", [("$GIT_PAGER", "p")]),
    ("env GIT_SSH='s' git fetch", [("$GIT_SSH", "s")]),
    ("LANG=C git log", []),
    ("env -S 'touch m'", [("env -S", "touch m")]),
    ("env --split-string='touch m'", [("env -S", "touch m")]),
    ("env -S'touch m'", [("env -S", "touch m")]),
    ("watch 'touch m'", [("touch m", "touch m")]),
    # sed: the `e` command runs the rest of its line, the `e` flag the pattern space
    ("sed 'e touch m' f", [("sed e", "touch m")]),
    ("sed -n '1etouch m' f", [("sed e", "touch m")]),
    ("sed -n '1e true; touch m' f", [("sed e", "true; touch m")]),
    ("sed '1e echo x}; echo y' f", [("sed e", "echo x}; echo y")]),
    ("sed '1e echo p \\\necho q' f", [("sed e", "echo p \necho q")]),
    ("sed '$!e touch m' f", [("sed e", "touch m")]),
    ("sed '/a/e touch m' f", [("sed e", "touch m")]),
    ("sed '/a/ e touch m' f", [("sed e", "touch m")]),
    ("sed -n -e p -e '1e c' f", [("sed e", "c")]),
    ("sed --expression='1e c' f", [("sed e", "c")]),
    ("sed -e p -e 1e f", [("sed e", None)]),
    ("sed 's/a/b/e' f", [("sed e", None)]),
    ("sed 's/a/b/ge;p' f", [("sed e", None)]),
    ("sed 's/a/echo/' f", []),
    ("sed -f script.sed f", []),
    ("sed --expression 'e touch m' f", [("sed e", "touch m")]),
    ("sed --expression='1e touch m=n' f", [("sed e", "touch m=n")]),
    ("sed --file script.sed f", []),
    ("sed --file=script.sed f", []),
    ("sed p 'e touch m'", []),  # the second operand is a file
    # awk, make, tar, zip, mapfile, trap, coproc
    ("awk 'BEGIN{system(\"touch m\")}'", [("awk system", "touch m")]),
    ('gawk \'BEGIN{print "" | "touch m"}\'', [("gawk system", "touch m")]),
    ("awk '{print $1 | \"sort\"}' f", [("awk system", "sort")]),
    ("nawk 'BEGIN{\"touch m\" | getline}'", [("nawk system", "touch m")]),
    ("mawk 'BEGIN{system(x)}'", [("mawk system", None)]),
    ("awk '{print $1}' f", []),
    ("make --eval='x: ; touch m'", [("make --eval", "x: ; touch m")]),
    ("make -E 'x: ; touch m'", [("make --eval", "x: ; touch m")]),
    ("gmake -Ec", [("make --eval", "c")]),
    ("make -E", []),
    ("make -j2 all", []),
    ("tar -xf a.tar --to-command='touch m'", [("tar --to-command", "touch m")]),
    (
        "tar --checkpoint-action=exec='touch m' -cf b.tar f",
        [("tar --checkpoint-action", "touch m")],
    ),
    ("tar --use-compress-program=c -xf a.tar", [("tar --use-compress-program", "c")]),
    ("bsdtar -I c -xf a.tar", [("tar -I", "c")]),
    ("tar --to-command", [("tar --to-command", None)]),
    ("tar -czf a.tgz f", []),
    ("zip -T -TT 'touch m' a.zip f", [("zip -TT", "touch m")]),
    ("zip --unzip-command c a.zip f", [("zip -TT", "c")]),
    ("zip --unzip-command=c a.zip f", [("zip -TT", "c")]),
    ("git rebase -x a --exec b --exec=c HEAD", [("git rebase --exec", w) for w in "abc"]),
    ("zip -r a.zip d", []),
    ("mapfile -C 'touch m' -c 1 a", [("mapfile -C", "touch m")]),
    ("readarray -t -C c a", [("readarray -C", "c")]),
    ("mapfile -t a", []),
    ("trap 'touch m' EXIT", [("trap", "touch m")]),
    ("trap -- 'c' INT", [("trap", "c")]),
    ('trap "$CODE" EXIT', [("trap", None)]),
    ("trap -p", []),
    ("trap -l", []),
    ("trap -p INT", []),
    ("trap -l INT", []),
    ("coproc touch m", [("coproc", "touch m"), ("coproc", "m")]),
    # debuggers: a shell escape runs a command line, anything else is the debugger's own
    ("gdb -batch -ex '!touch m'", [("gdb -ex", "touch m")]),
    ("gdb -batch -ex '! touch m'", [("gdb -ex", " touch m")]),
    ("gdb -batch -ex 'shell touch m'", [("gdb -ex", "touch m")]),
    ("gdb --eval-command='shell touch m'", [("gdb -ex", "touch m")]),
    ("gdb -eval-command='shell touch m'", [("gdb -ex", "touch m")]),
    ("gdb -iex 'python 1'", [("gdb -ex", None)]),
    ("gdb -ex", [("gdb -ex", None)]),
    ("gdb --ex 'shell touch m'", [("gdb -ex", "touch m")]),
    ("gdb -iex '!touch m'", [("gdb -ex", "touch m")]),
    ("gdb -eval-command '!touch m'", [("gdb -ex", "touch m")]),
    ("gdb --eval-command '!touch m'", [("gdb -ex", "touch m")]),
    ("gdb --eval-command='shell a=b'", [("gdb -ex", "a=b")]),
    ("gdb ./a.out", []),
    ("lldb -o 'platform shell touch m'", [("lldb -ex", "touch m")]),
    ("lldb -O '!touch m'", [("lldb -ex", "touch m")]),
    ("lldb -o 'platform select x'", [("lldb -ex", None)]),
    # terminal multiplexers
    ("tmux new-session -d 'touch m'", [("tmux new-session", "touch m")]),
    ("tmux -L x new-window -n w -c d 'touch m'", [("tmux new-window", "touch m")]),
    ("tmux send-keys -t s 'touch m' Enter", [("tmux send-keys", "'touch m' Enter")]),
    ("tmux send-keys", []),
    ("tmux -c 'touch m'", [("tmux -c", "touch m")]),  # the login-shell form runs its command
    ("tmux -S /tmp/s new -d 'touch m'", [("tmux new", "touch m")]),
    ("tmux -f conf new -d 'touch m'", [("tmux new", "touch m")]),
    ("tmux -T 256 new -d 'touch m'", [("tmux new", "touch m")]),
    ("tmux", []),
    ("tmux list-sessions", []),
    ("screen -dm touch m", [("screen", "touch m")]),
    ("byobu -S s touch m", [("byobu", "touch m")]),
    ("screen -ls", []),
    ("screen -S s -dm touch m", [("screen", "touch m")]),
    ("screen -c rc -dm touch m", [("screen", "touch m")]),
    ("screen -e ^Aa -dm touch m", [("screen", "touch m")]),
    ("screen -T xterm -t title -dm touch m", [("screen", "touch m")]),
    ("screen -p 0 -X stuff 'touch m'", [("screen", "'touch m'")]),
    # a pager, a remote shell, a queued job, a remote or proxy command, an editor's ex commands
    ("man -P 'touch m' ls", [("man -P", "touch m")]),
    ("man --pager='touch m' ls", [("man -P", "touch m")]),
    ("man ls", []),
    ("rsync -e 'ssh -p 2' a h:b", [("rsync -e", "ssh -p 2")]),
    ("rsync --rsh='touch m' a h:b", [("rsync -e", "touch m")]),
    ("rsync -a src/ dst/", []),
    ("at now <<< 'touch m'", [("at /dev/stdin", "touch m")]),
    ("batch <<< 'touch m'", [("batch /dev/stdin", "touch m")]),
    ("at -f job.sh now", [("at -f", None)]),
    ("at -l", []),
    ("ssh localhost 'touch m'", [("ssh", "touch m")]),
    ("ssh -p 22 -i key -l me host touch m", [("ssh", "touch m")]),
    ("ssh -o ProxyCommand='touch m' host", [("ssh -o ProxyCommand", "touch m")]),
    ("ssh -o 'LocalCommand touch m' host", [("ssh -o LocalCommand", "touch m")]),
    ("ssh -o BatchMode=yes host", []),
    ("vim -es -c '!touch m' -c q", [("vim -c", "touch m")]),
    ("vim +'silent !touch m' +q", [("vim -c", "touch m")]),
    ("nvim --cmd ':!touch m'", [("nvim -c", "touch m")]),
    ("vim -c 'r !date' f", [("vim -c", None)]),
    ("vim -c '%!sort' f", [("vim -c", None)]),
    ("vim -c 'call system(x)' f", [("vim -c", None)]),
    ("vim -c 'py3 import os' f", [("vim -c", None)]),
    ("vim -c 'w! /tmp/x' -c 'wq!' f", []),
    ("vim +10 f", []),
    ("expect -c 'spawn ls'", [("expect -c", None)]),
    ("expect run.exp", []),
    # a shell reading its script from stdin
    ("bash /dev/stdin <<< 'touch m'", [("bash /dev/stdin", "touch m")]),
    (". /dev/stdin <<< 'touch m'", [(". /dev/stdin", "touch m")]),
    ("source /proc/self/fd/0 <<< c", [("source /dev/stdin", "c")]),
    (". /dev/stdin", [(". /dev/stdin", None)]),
    (". ./env.sh", []),
]


# (ids made by pytest: an explicit one holding a backslash is escaped again at each in-process
# collection, and mutmut collects twice)
@pytest.mark.parametrize(("line", "expected"), EXACT)
def test_the_code_a_command_runs_is_found_exactly(line: str, expected: Found) -> None:
    assert found_in(line) == expected


# Lines that really run `touch m`, each with the program that runs its code.
RUNS = [
    ("git", "git -c alias.x='!touch m' x"),
    ("git", "git -c core.editor='touch m' commit --allow-empty"),
    ("git", "git rebase -x 'touch m' --root"),
    ("git", "git rebase --exec='true; touch m' --root"),
    ("git", "echo b > f; git difftool -y -x 'touch m'"),
    ("git", "echo b > f; git difftool -y --extcmd='touch m'"),
    ("git", "GIT_SSH_COMMAND='touch m' git ls-remote ssh://host/repo"),
    ("git", "GIT_EDITOR='touch m' git commit --allow-empty"),
    ("git", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!touch m' git x"),
    ("sed", "sed -n '1e touch m' f"),
    ("sed", "sed -n '1etouch m' f"),
    ("sed", "sed -n '1e true; touch m' f"),
    ("sed", "sed -n '/a/e touch m' f"),
    ("awk", "awk 'BEGIN{system(\"touch m\")}'"),
    ("awk", 'awk \'BEGIN{print "" | "touch m"}\''),
    ("make", "make -f /dev/null --eval='x: ; touch m' x"),
    ("make", "make -f /dev/null -E 'x: ; touch m' x"),
    ("tar", "tar -xf a.tar --to-command='touch m'"),
    ("tar", "tar -cf b.tar --checkpoint=1 --checkpoint-action=exec='touch m' f"),
    ("bash", "trap 'touch m' EXIT"),
    ("bash", "coproc touch m; wait"),
    ("bash", "mapfile -C 'touch m' -c 1 lines < f"),
    ("gdb", "gdb -batch -nx -ex '!touch m'"),
    ("gdb", "gdb -batch -nx -ex 'shell true; touch m'"),
    ("zip", "zip -q -T -TT 'touch m' z.zip f"),
    ("vim", "vim -es -u NONE -i NONE -c '!touch m' -c q"),
    ("vim", "vim -es -u NONE -i NONE +'silent !touch m' +q"),
    ("ssh", "ssh -F /dev/null -o BatchMode=yes -o ProxyCommand='touch m' host"),
    ("env", "env -S 'touch m'"),
    ("bash", "bash /dev/stdin <<< 'touch m'"),
    ("bash", ". /dev/stdin <<< 'touch m'"),
]


def _bash(line: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, timeout=60)


@pytest.fixture
def workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git work tree with one commit of `f`, and `a.tar` holding `f`."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "GIT_CONFIG_NOSYSTEM": "1",
        **{
            f"GIT_{who}_{what}": "t"
            for who in ("AUTHOR", "COMMITTER")
            for what in ("NAME", "EMAIL")
        },
    }
    (work / "f").write_text("a\n")
    _bash("git init -q && git add f && git commit -qm f && tar -cf a.tar f", work, env)
    assert (work / ".git").is_dir() and (work / "a.tar").is_file()
    return work, env


@pytest.mark.parametrize(("program", "line"), RUNS, ids=[line for _, line in RUNS])
def test_the_code_found_is_the_code_the_program_runs(
    workdir: tuple[Path, dict[str, str]], tmp_path: Path, program: str, line: str
) -> None:
    work, env = workdir
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    _bash(line, work, env)
    assert (work / "m").exists(), f"the line itself did not run its code: {line}"
    found = [code for _, code in found_in(line) if code is not None]
    for n, code in enumerate(found):
        alone = tmp_path / f"alone{n}"
        alone.mkdir()
        _bash(code, alone, env)
        if (alone / "m").exists():
            return
    pytest.fail(f"no code found in {line!r} does what it did: {found}")
