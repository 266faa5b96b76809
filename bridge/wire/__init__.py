"""Claude Code's hook wire format: events in, answers out, sub-hook outputs read as CC does."""
