"""`builtin:protect_paths` and self-protection: `protect` (the guard), `write_target` (the paths
a command may write, shared with `writes`), `writes` (what copies, moves, finds, extractions,
patches and scripted editors write)."""
