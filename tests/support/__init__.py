"""Helpers shared by the tests: `sandbox` (a private world to run ccbridge in), `events` (hook
events and sub-hook specs), `fold_spec` (the fold written from the protocol, an oracle)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
