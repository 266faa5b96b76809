"""`builtin:dangerous_shell`: `dangerous_shell` (the guard and its rules for files, code and
wrappers), `system_rules` (disks, devices, power, every process, fork bombs), `git_rules` (git's
destructive verbs), `targets` (what a path operand can name), `unread` (code that would run
unread)."""
