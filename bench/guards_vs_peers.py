#!/usr/bin/env python3
"""The ready-made guards against three peers' own test suites, read at run time.

    python bench/guards_vs_peers.py SNAPSHOT... [--self-protection] [--show KIND]

Each SNAPSHOT is a directory holding a peer's repository: a checkout or a bare git directory
(its HEAD is read), or a directory of such repositories. Which peer it is, is told by what it
holds: cc-safety-net (TypeScript tests calling `assertBlocked`/`assertAllowed` with a literal
command), destructive_command_guard (`tests/corpus/**/*.toml` cases with `expected` or
`expected_decision`, and `tests/e2e/fixtures/commands/{dangerous,safe}.txt`) and Dippy
(Python tests listing `(command, approved)` pairs). Nothing is copied into this repository:
the cases are read, judged and counted, and only the figures are printed.

Labels: the peer's own verdict. cc-safety-net and dcg say deny or allow; Dippy says approve
(allow) or ask the user ("confirm"). ccbridge never pre-approves, so Claude Code still asks for
whatever ccbridge lets through: a Dippy "confirm" is what Claude Code does by default, and such
a case counts as a deny label only inside the families ccbridge claims (where it should stop
the call); elsewhere it is left out of the agreement figures.

A case is judged by the built-in guards as `ccbridge run` runs them (`builtin:dangerous_shell`
and `builtin:protect_paths`, plus self-protection with `--self-protection`), folded by the
pipeline (deny > ask), with cwd and CLAUDE_PROJECT_DIR /work/project and HOME /home/dev. An
ask stops the call for the user's answer: against a deny label it agrees; against an allow
label it is counted apart (asked), never as an extra denial.

Families ccbridge claims (by the command's text, whatever the label): recursive deletion,
disks, the machine (power, kill-all, fork bombs), git history and work, download-and-run,
code run unread. Figures: overall agreement, agreement with the deny labels in the claimed
families, misses (a deny label in a claimed family that ccbridge lets through), extra denials
(ccbridge denies what the peer allows), per source and in total.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PROJECT, HOME = "/work/project", "/home/dev"
CHECKOUT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    source: str
    command: str
    label: str  # deny, allow, confirm


class Snapshot:
    """A repository's files, from a checkout or from a bare git directory's HEAD."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bare = (root / "HEAD").is_file() and (root / "objects").is_dir()

    def paths(self) -> list[str]:
        if self.bare:
            done = subprocess.run(
                ["git", f"--git-dir={self.root}", "ls-tree", "-r", "--name-only", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            )
            return done.stdout.splitlines()
        return [
            str(path.relative_to(self.root))
            for path in self.root.rglob("*")
            if path.is_file() and ".git" not in path.parts and "node_modules" not in path.parts
        ]

    def read(self, path: str) -> str:
        if self.bare:
            done = subprocess.run(
                ["git", f"--git-dir={self.root}", "show", f"HEAD:{path}"],
                capture_output=True,
                check=True,
            )
            return done.stdout.decode("utf-8", "replace")
        return (self.root / path).read_text(encoding="utf-8", errors="replace")


# ------------------------------------------------------------------------------ extraction

_JS_CALL = re.compile(
    r"\bassert(Blocked|Allowed)\(\s*(?P<q>['\"`])(?P<text>(?:\\.|(?!(?P=q)).)*?)(?P=q)\s*[,)]",
    re.DOTALL,
)
_JS_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|.)", re.DOTALL)
_JS_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}


def _js_unescape(text: str) -> str:
    def one(found: re.Match[str]) -> str:
        code = found[1]
        if code.startswith("x"):
            return chr(int(code[1:], 16))
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        if code.startswith("u") and len(code) == 5:
            return chr(int(code[1:], 16))
        return _JS_SIMPLE.get(code, code)

    return _JS_ESCAPE.sub(one, text)


def cc_safety_net(snapshot: Snapshot, paths: list[str]) -> Iterator[Case]:
    for path in paths:
        if not (path.startswith("tests/") and path.endswith(".ts")):
            continue
        for found in _JS_CALL.finditer(snapshot.read(path)):
            text = found["text"]
            if found["q"] == "`" and "${" in text:
                continue  # built at run time by the test: not a literal case
            label = "deny" if found[1] == "Blocked" else "allow"
            yield Case("cc-safety-net", _js_unescape(text), label)


def dcg(snapshot: Snapshot, paths: list[str]) -> Iterator[Case]:
    for path in paths:
        if path.startswith("tests/corpus/") and path.endswith(".toml"):
            try:
                data = tomllib.loads(snapshot.read(path))
            except tomllib.TOMLDecodeError:
                continue
            for case in data.get("case", []):
                label = case.get("expected") or case.get("expected_decision")
                if isinstance(case.get("command"), str) and label in ("deny", "allow"):
                    yield Case("dcg", case["command"], label)
        name = path.rpartition("/")[2]
        if path.startswith("tests/e2e/fixtures/commands/") and name in (
            "dangerous.txt",
            "safe.txt",
        ):
            label = "deny" if name == "dangerous.txt" else "allow"
            for line in snapshot.read(path).splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    yield Case("dcg", line.strip(), label)


def dippy(snapshot: Snapshot, paths: list[str]) -> Iterator[Case]:
    for path in paths:
        if not (path.startswith("tests/") and path.endswith(".py")):
            continue
        text = snapshot.read(path)
        if "is_approved" not in text and "needs_confirmation" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Tuple) and len(node.elts) == 2):
                continue
            command, approved = node.elts
            if (
                isinstance(command, ast.Constant)
                and isinstance(command.value, str)
                and isinstance(approved, ast.Constant)
                and isinstance(approved.value, bool)
            ):
                yield Case("Dippy", command.value, "allow" if approved.value else "confirm")


PEERS: dict[str, tuple[Callable[[list[str]], bool], Callable[..., Iterator[Case]]]] = {
    "cc-safety-net": (
        lambda paths: (
            any(p.startswith("tests/") and p.endswith(".test.ts") for p in paths)
            and "package.json" in paths
        ),
        cc_safety_net,
    ),
    "dcg": (lambda paths: any(p.startswith("tests/corpus/") for p in paths), dcg),
    "Dippy": (lambda paths: any(p.startswith("src/dippy/") for p in paths), dippy),
}


def snapshots(roots: Iterable[Path]) -> Iterator[tuple[str, Snapshot, list[str]]]:
    """Each peer repository found at or one level below (a mirror's `repo`, two) the roots."""
    for root in roots:
        candidates = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
        candidates += [p / "repo" for p in candidates if (p / "repo").is_dir()]
        for candidate in candidates:
            snapshot = Snapshot(candidate)
            if not snapshot.bare and not (candidate / "tests").is_dir():
                continue
            paths = snapshot.paths()
            for name, (recognise, _extract) in PEERS.items():
                if recognise(paths):
                    yield name, snapshot, paths


def load(roots: Iterable[Path]) -> list[Case]:
    """Every case, once per source (a command labelled both ways by one peer is left out)."""
    cases: dict[tuple[str, str], set[str]] = {}
    for name, snapshot, paths in snapshots(roots):
        for case in PEERS[name][1](snapshot, paths):
            cases.setdefault((case.source, case.command), set()).add(case.label)
    return [
        Case(source, command, labels.pop())
        for (source, command), labels in cases.items()
        if len(labels) == 1
    ]


# ------------------------------------------------------------------------------ families

# What a recursive deletion must be handed to be in the claimed family: `/`, a top-level
# system directory, a home directory, the working directory or its parent, a glob of them,
# `.git`, or a word only known at run time (`$X`, a backquote).
_CRITICAL_WORD = (
    r"""(?:^|[\s'"=(])(?:/|/\*|~/?\*?|\$\{?HOME\}?/?\*?|\.{1,2}/?\*?|\*|\.\*|(?:\./)?\.git/?"""
    r"|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|media|mnt|opt|proc|root|run|sbin|srv|sys"
    r"|tmp|usr|var|Applications|Library|System|Users|Volumes|private)/?\*?"
    r"""|/(?:home|Users)/[^/\s'"]+/?|[^\s'"]*[$`][^\s'"]*)(?=$|[\s'")};|&])"""
)
_DELETES = (
    r"\brm\b[^|;&\n]*\s-[a-zA-Z]*[rR]|\brm\b[^|;&\n]*--recursive|\bfind\b[^|;&\n]*"
    r"(?:-delete|-exec(?:dir)?\s+(?:\S*/)?(?:\S+\s+)?(?:rm|shred|unlink)\b)"
    r"|\b(?:chmod|chown|chgrp)\b[^|;&\n]*\s(?:-[a-zA-Z]*R|--recursive)|\brsync\b[^|;&\n]*--del"
    r"|rmtree|rm_rf|rmSync|remove_tree|--no-preserve-root"
)
_AT_COMMAND = r"(?:^|[;&|({`]\s*|\$\(\s*|\b(?:sudo|exec|nohup|env|command|busybox)\s+)"
FAMILIES = {
    "recursive deletion": re.compile(
        rf"(?=.*(?:{_DELETES}))(?=.*\b(?:rm|find|chmod|chown|chgrp|rsync|rmtree|rm_rf|rmSync"
        rf"|remove_tree)\b[^;&|\n]*?{_CRITICAL_WORD})",
        re.DOTALL,
    ),
    "disks": re.compile(
        _AT_COMMAND + r"(?:\S*/)?(?:mkfs\S*|mke2fs|mkswap|wipefs|[sg]?fdisk|parted|badblocks"
        r"|hdparm|blkdiscard)\b|\bdd\b[^|;&\n]*\bof=/dev/|\bdiskutil\s+\w*(?:erase|zero"
        r"|partition|secure)|\bnvme\s+(?:format|sanitize)|\bshred\b[^|;&\n]*/dev/"
        r"|>\s*/dev/(?:sd|nvme|hd|vd|xvd|mmcblk|disk)",
        re.IGNORECASE,
    ),
    "the machine": re.compile(
        _AT_COMMAND + r"(?:\S*/)?(?:shutdown|reboot|halt|poweroff|kexec|killall5)\b"
        r"|\bsystemctl\s+(?:poweroff|reboot|halt|kexec)\b|\bkill\s+(?:-\S+\s+)*-1\b|sysrq"
        r"|:\(\)\s*\{|\bfork\s+while\b|\binit\s+[06]\b"
    ),
    "git history and work": re.compile(
        r"\bgit\b.*\b(?:reset\b[^|;&\n]*--hard|clean\b[^|;&\n]*\s-[a-zA-Z]*f|push\b[^|;&\n]*"
        r"(?:\s-[a-zA-Z]*f\b|--force|--mirror|--delete|\s-d\b|\s\+\S|\s:\S)|checkout\b[^|;&\n]*"
        r"(?:\s--\s+\.|\s-f\b|--force)|restore\s+(?:\.|:/)|switch\b[^|;&\n]*(?:\s-f\b|--discard"
        r"|--force)|stash\s+(?:drop|clear)|branch\b[^|;&\n]*\s-D\b)",
        re.IGNORECASE,
    ),
    "download and run": re.compile(
        r"\b(?:curl|wget)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:\S*/)?(?:ba|z|da|k)?sh\b"
        r"|\b(?:curl|wget)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:python\d?|perl|ruby|node)\b"
        r"|\b(?:source|\.|(?:ba|z)?sh)\s+<\(\s*(?:curl|wget)|\$\(\s*(?:curl|wget)\b"
    ),
    "code run unread": re.compile(
        r"\b(?:eval|(?:ba|z)?sh\s+-c)\s+[\"']?\$|\b(?:base64|xxd)\b[^|;&\n]*\|\s*(?:ba)?sh\b"
    ),
}


# Where ccbridge answers otherwise by design (its guide says why), as this script's own rules:
# a disagreement one of them describes is counted apart, as deliberate.
DELIBERATE = {
    "miss": {
        "a find narrowed by its tests cannot list .git": re.compile(
            r"\bfind\s+\.\s.*-(?:name|iname|path|empty|mtime|type|newer|size)\b"
        ),
        "a relative path after `cd ..` is a sibling, not the project": re.compile(
            r"\bcd\s+\.\.(?:\s|;|\)|$)"
        ),
        "in temporary space": re.compile(r"\bcd\s+/tmp\b|\bfind\s+\$TMPDIR/\w"),
        "Windows programs are not read": re.compile(r"(?i)\.exe\b|\bC:\\"),
        "`command -v`/`-V` looks a command up": re.compile(r"\bcommand\s+-\w*[vV]"),
        "bash expands no `~` that a variable holds": re.compile(r"\w=(['\"])[^'\"]*~[^'\"]*\1"),
        "names are case-sensitive": re.compile(r"\b(?:XARGS|GIT|RM|FIND)\b"),
        "git: a dry run, one path, a merged branch or a lease": re.compile(
            r"\bgit\s+(?:clean\s+-\w*n|checkout\s+--\s+-\w|branch\s+-d\b|push\b.*"
            r"--force-with-lease)"
        ),
    },
    "extra": {
        "unreadable: fail closed": re.compile(r"^"),  # matched by the guard's reason below
        "/tmp itself holds other programs' files": re.compile(r"\brm\s+-\w+\s+/tmp/?\*?\s*$"),
        "`find .` lists .git, whatever -exec rm is given": re.compile(
            r"\bfind\s+\.\s+-exec\s+rm\b"
        ),
        "a line that sets TMPDIR is not trusted with it": re.compile(r"\bTMPDIR=/"),
    },
}


def deliberate(kind: str, case: Case, reason: str) -> str | None:
    """The design rule a disagreement follows, if any."""
    for name, pattern in DELIBERATE.get(kind, {}).items():
        if name.startswith("unreadable"):
            if reason.startswith("[guard builtin:dangerous_shell] cannot parse"):
                return name
        elif pattern.search(case.command):
            return name
    return None


def families(command: str) -> list[str]:
    return [name for name, pattern in FAMILIES.items() if pattern.search(command)]


# ------------------------------------------------------------------------------ judging


def judge_with(self_protection: bool) -> Callable[[str], tuple[str, str]]:
    """The guards `ccbridge run` would run, folded by the pipeline: deny, ask or allow."""
    os.environ.update(HOME=HOME, CLAUDE_PROJECT_DIR=PROJECT)
    sys.path.insert(0, str(CHECKOUT))
    from bridge.pipeline import Allow, Ask, Execution, Named, Stations, decide
    from bridge.policies.loader import load_policy

    guards = [
        Named(f"guard builtin:{n}", load_policy(f"builtin:{n}"))
        for n in ("dangerous_shell", "protect_paths")
    ]
    if self_protection:
        import importlib

        for module in ("bridge.guards.protect.protect_paths", "bridge.policies.protect"):
            try:
                protect = importlib.import_module(module)
                break
            except ImportError:
                continue
        state = f"{HOME}/.local/state/ccbridge"
        guard = protect.self_protection_guard(
            config_files=[f"{PROJECT}/.claude/ccbridge.yaml", f"{HOME}/.claude/ccbridge.yaml"],
            state_dir=[state, f"{HOME}/.cache/ccbridge"],
            env={"HOME": HOME, "PATH": "/usr/bin:/bin"},
        )
        guards.insert(0, Named("self-protection", guard))
    stations = Stations(guards=guards)

    def verdict(command: str) -> tuple[str, str]:
        execution = Execution.create("Bash", {"command": command}, cwd=PROJECT)
        decision = decide(execution, stations, lambda _e, _a: "deferred").decision
        if isinstance(decision, Allow):
            return "allow", ""
        return ("ask" if isinstance(decision, Ask) else "deny"), decision.reason

    return verdict


@dataclass
class Tally:
    cases: int = 0
    agreed: int = 0
    family_deny: int = 0
    family_agreed: int = 0
    misses: int = 0
    allow_labels: int = 0
    extra_denials: int = 0
    asked_on_allow: int = 0
    asked_on_deny: int = 0
    deliberate_misses: int = 0
    deliberate_extra: int = 0

    def add(self, case: Case, got: str, claimed: bool, reason: str = "") -> list[str]:
        """Count one case; the kinds of disagreement it is (for --show)."""
        kinds = []
        label = case.label
        if label == "confirm":
            if not claimed:
                return []  # Claude Code's own prompt is the peer's answer: left out
            label = "deny"
        self.cases += 1
        stops = got in ("deny", "ask")
        if label == "allow":
            self.allow_labels += 1
            self.agreed += got == "allow"
            if got == "deny":
                self.extra_denials += 1
                kinds.append("extra")
                self.deliberate_extra += deliberate("extra", case, reason) is not None
            elif got == "ask":
                self.asked_on_allow += 1
                kinds.append("asked")
        else:
            self.agreed += stops
            self.asked_on_deny += got == "ask"
            if claimed:
                self.family_deny += 1
                self.family_agreed += stops
                if not stops:
                    self.misses += 1
                    kinds.append("miss")
                    self.deliberate_misses += deliberate("miss", case, reason) is not None
            elif not stops:
                kinds.append("unclaimed")
        return kinds

    def line(self, name: str) -> str:
        def share(part: int, whole: int) -> str:
            return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "-"

        net = self.family_agreed + self.deliberate_misses
        return (
            f"{name:<14} cases {self.cases:>5}  overall {share(self.agreed, self.cases):<20} "
            f"claimed-family denials {share(self.family_agreed, self.family_deny):<19} "
            f"(net of deliberate {share(net, self.family_deny)})  "
            f"misses {self.misses:>3} ({self.deliberate_misses} deliberate)  "
            f"extra denials {self.extra_denials:>3} ({self.deliberate_extra} deliberate) of "
            f"{self.allow_labels} allow  asked: {self.asked_on_allow} allow, "
            f"{self.asked_on_deny} deny"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("snapshots", nargs="+", type=Path, metavar="SNAPSHOT")
    parser.add_argument("--self-protection", action="store_true", help="add self-protection")
    parser.add_argument(
        "--show",
        action="append",
        default=[],
        choices=("miss", "extra", "asked", "unclaimed"),
        help="list the cases of this kind (to read, not to keep)",
    )
    options = parser.parse_args(argv)
    cases = load(options.snapshots)
    if not cases:
        print("no peer test cases found under", *options.snapshots, file=sys.stderr)
        return 1
    verdict = judge_with(options.self_protection)
    tallies: dict[str, Tally] = {}
    labels = Counter((case.source, case.label) for case in cases)
    shown: list[str] = []
    for case in sorted(cases, key=lambda c: (c.source, c.command)):
        claimed = bool(families(case.command))
        got, reason = verdict(case.command)
        kinds = tallies.setdefault(case.source, Tally()).add(case, got, claimed, reason)
        tallies.setdefault("all", Tally()).add(case, got, claimed, reason)
        shown += [
            f"{kind}\t{case.source}\t{case.label}\t{got}\t{case.command!r}\t"
            f"{deliberate(kind, case, reason) or ''}"
            for kind in kinds
            if kind in options.show
        ]
    guards = "dangerous_shell + protect_paths" + (
        " + self-protection" if options.self_protection else ""
    )
    print(f"guards: {guards}; cwd {PROJECT}, HOME {HOME}")
    print("labels:", ", ".join(f"{s} {kind} {n}" for (s, kind), n in sorted(labels.items())))
    for name in sorted(tallies, key=lambda n: (n == "all", n)):
        print(tallies[name].line(name))
    for line in shown:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
