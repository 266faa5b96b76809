from __future__ import annotations

import json

from tests.support.events import event_json
from tests.support.sandbox import Sandbox

CONFIG = """hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: echo "no rm" >&2; exit 2
          name: no-rm
        - type: command
          name: rewriter
          command: >-
            echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse",
            "permissionDecision":"allow","updatedInput":{"command":"ls"}}}'
    - matcher: Write
      hooks:
        - type: command
          command: exit 1
          name: writer
"""


def test_explain_traces_every_subhook_and_prints_the_run_answer(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, CONFIG)
    stdin = event_json(command="rm -rf build")
    done = sandbox.run("explain", stdin=stdin)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"{sandbox.config}:5 hooks.PreToolUse[0].hooks[0]" in out
    assert "exit 2" in out and "said: no rm" in out and "ccbridge: counts as deny" in out
    assert "allow downgraded to no opinion; updatedInput recorded, not applied" in out
    assert "writer  not matched (matcher 'Write')" in out
    assert '{"command": {"from": "rm -rf build", "to": "ls"}}' in out
    run = sandbox.run("run", stdin=stdin)
    assert run.returncode == 2
    assert run.stdout.strip() in out.splitlines()
    assert "answer (exit 2)" in out


def test_explain_json_and_no_audit_record(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, CONFIG)
    done = sandbox.run("explain", "--json", stdin=event_json(command="rm x"))
    data = json.loads(done.stdout)
    names = {item["name"]: item for item in data["subhooks"]}
    assert names["no-rm"]["verdict"] == "deny" and names["no-rm"]["exit_code"] == 2
    assert names["no-rm"]["duration_ms"] >= 0
    assert names["writer"]["matched"] is False and names["writer"]["verdict"] is None
    assert names["rewriter"]["action"].startswith("allow downgraded")
    assert data["steps"][0] == {
        "station": "pre_execute",
        "name": "subhooks",
        "outcome": "deny",
        "detail": "[no-rm] no rm",
    }
    assert data["answer"]["exit_code"] == 2
    assert (
        json.loads(data["answer"]["stdout"])["hookSpecificOutput"]["permissionDecision"] == "deny"
    )
    assert not (sandbox.state / "audit.jsonl").exists()


def test_explain_shows_a_config_error_as_run_would(sandbox: Sandbox) -> None:
    config = sandbox.write(sandbox.root / "bad.yaml", "defaults:\n  timeout: 99\n")
    done = sandbox.run("explain", "--config", str(config), stdin=event_json())
    assert done.returncode == 0
    assert "config error" in done.stdout and "bad.yaml:2" in done.stdout
    assert '"permissionDecision":"deny"' in done.stdout


def test_explain_rejects_bad_stdin_without_traceback(sandbox: Sandbox) -> None:
    done = sandbox.run("explain", stdin="{")
    assert done.returncode == 1
    assert "not valid JSON" in done.stderr and "Traceback" not in done.stderr


def test_a_guard_that_asks_is_shown_in_explain_in_the_answer_and_in_the_audit(
    sandbox: Sandbox,
) -> None:
    """`rm -rf "$target"`: the guard cannot know the target, so CC's prompt asks the user; with
    `approval: none` the same question is a deny."""
    guards = "policies: {guards: [builtin:dangerous_shell]}\nself_protection: false\n"
    # Self-protection may be switched off only in the user layer (layers only tighten).
    user_layer = sandbox.home / ".claude" / "ccbridge.yaml"
    sandbox.write(user_layer, guards)
    stdin = event_json(command='rm -rf "$target"')
    why = "cannot tell what this deletes: $target is only known when the command runs"
    done = sandbox.run("explain", "--json", stdin=stdin)
    data = json.loads(done.stdout)
    step = data["steps"][0]
    assert (step["name"], step["outcome"]) == ("guard builtin:dangerous_shell", "ask")
    assert why in step["detail"]
    assert data["answer"]["exit_code"] == 0
    text = sandbox.run("explain", stdin=stdin).stdout
    assert "guard builtin:dangerous_shell" in text and " ask " in text
    run = sandbox.run("run", stdin=stdin)
    specific = json.loads(run.stdout)["hookSpecificOutput"]
    assert (run.returncode, specific["permissionDecision"]) == (0, "ask")
    assert specific["permissionDecisionReason"].startswith("[guard builtin:dangerous_shell] ")
    assert why in specific["permissionDecisionReason"]
    record = json.loads((sandbox.state / "audit.jsonl").read_text().splitlines()[-1])
    assert any(s["outcome"] == "ask" and why in s["detail"] for s in record["steps"])
    sandbox.write(user_layer, guards + "defaults: {approval: none}\n")
    strict = sandbox.run("run", stdin=stdin)
    specific = json.loads(strict.stdout)["hookSpecificOutput"]
    assert (strict.returncode, specific["permissionDecision"]) == (2, "deny")
    assert why in specific["permissionDecisionReason"]
    assert (
        json.loads(sandbox.run("run", stdin=event_json(command="rm -rf /")).stdout)[
            "hookSpecificOutput"
        ]["permissionDecision"]
        == "deny"
    )


def test_every_guards_denial_is_in_the_answer_and_in_explain(sandbox: Sandbox) -> None:
    """`rm -rf ~` deletes a home directory and the protected files in it: the answer names
    both causes, the most informative one (dangerous_shell's) first as the reasons sort."""
    sandbox.write(
        sandbox.config, "policies:\n  guards: [builtin:dangerous_shell, builtin:protect_paths]\n"
    )
    stdin = event_json(command="rm -rf ~")
    done = sandbox.run("explain", "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    guards = {step["name"]: step for step in data["steps"] if step["station"] == "guard"}
    assert guards["self-protection"]["outcome"] == "deny"
    assert guards["guard builtin:dangerous_shell"]["outcome"] == "deny"
    run = sandbox.run("run", stdin=stdin)
    assert run.returncode == 2
    assert json.loads(run.stdout) == json.loads(data["answer"]["stdout"])  # the same answer
    reason = json.loads(run.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    parts = reason.split("\n\n")
    assert parts == sorted(parts) and len(parts) >= 2
    assert parts[0].startswith("[guard builtin:dangerous_shell]") and "home directory" in parts[0]
    assert any(part.startswith("[self-protection]") for part in parts)


def test_a_deduplicated_copy_names_the_handler_that_ran_for_it(sandbox: Sandbox) -> None:
    hook = "        - {type: command, command: 'exit 0', name: %s}\n"
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        + hook % "first"
        + "    - matcher: Bash\n      hooks:\n"
        + hook % "second",
    )
    done = sandbox.run("explain", stdin=event_json(command="ls"))
    assert done.returncode == 0, done.stderr
    assert f"second  same handler as first ({sandbox.config}:" in done.stdout
    assert "not matched" not in done.stdout


def test_a_multi_line_reason_stays_indented(sandbox: Sandbox) -> None:
    script = sandbox.script("two.sh", "printf 'line one\\nline two\\n' >&2; exit 2")
    sandbox.write(
        sandbox.config,
        f"hooks:\n  PreToolUse:\n    - hooks:\n        - {{type: command, command: {script}}}\n",
    )
    out = sandbox.run("explain", stdin=event_json(command="ls")).stdout
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if "said: line one" in line)
    assert lines[first + 1] == " " * 14 + "line two", lines[first : first + 2]
