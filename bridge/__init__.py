"""ccbridge: Claude Code hooks run through the DSH tool pipeline."""

__version__ = "0.1.0"


class CcbridgeError(ValueError):
    """A problem ccbridge explains in its own words (a bad config, event, matcher, fixture, an
    install it cannot make): the command line prints the message and exits 1, once, in
    bridge.cli; a hook call turns it into its fail-closed answer. A ValueError, as each of them
    was one before."""
