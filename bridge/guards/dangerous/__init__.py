"""`builtin:dangerous_shell`: `dangerous` (the guard), `git_rules` (git's destructive verbs),
`targets` (what a path operand can name), `unread` (code that would run unread)."""
