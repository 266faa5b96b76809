"""`builtin:protect_paths` and self-protection: `protect` (the guard), `write_target` (the paths
a command may write, shared with `writes`), `writes` (what copies, moves, finds, extractions,
patches and scripted editors write), `tripwire` (self-protection's reading of any other
command: the words it may write, the code it hands on, copies of ccbridge)."""
