"""The ready-made guards, each a package: `dangerous` (destructive shell commands) and `protect`
(writes to protected paths, and ccbridge's self-protection)."""
