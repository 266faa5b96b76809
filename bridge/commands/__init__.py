"""The work of each `ccbridge` command, one module per command (its click wrapper is in
bridge.cli): `install` (and uninstall), `doctor` (with `sandbox_check`), `explain`, `cases`
(the golden cases `ccbridge test` runs), `audit`, `check`."""
