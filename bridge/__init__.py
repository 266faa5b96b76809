"""ccbridge: Claude Code hooks run through the DSH tool pipeline."""

__version__ = "0.1.0"
