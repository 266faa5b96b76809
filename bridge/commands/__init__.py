"""The work of each `ccbridge` command, one module per command (its click wrapper is
bridge.cli.<command>_command): `install` (and uninstall), `doctor` (with `sandbox_check`),
`explain`, `cases` (the golden cases `ccbridge test` runs), `audit_query`, `check`."""
