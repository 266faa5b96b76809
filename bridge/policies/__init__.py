"""Native Python policies: the API, loading them from the config, and the names of the ready-made
ones (the guards themselves are in bridge.guards)."""
