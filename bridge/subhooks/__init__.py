"""CC-format sub-hooks: which ones match, running them in parallel, and folding their verdicts."""
