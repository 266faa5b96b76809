"""The work of each `ccbridge` command, one module per command (its click wrapper is
bridge.cli.<command>_command): `install` (and uninstall; `install_plan` writes its plan with a
backup, `settings_json` reads and writes the settings file), `doctor` (with `sandbox_check`),
`explain`, `cases` (the golden cases `ccbridge test` runs), `audit_query`, `check`."""
