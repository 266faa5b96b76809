"""Native Python policies: the API, loading them from the config, and the ready-made ones."""
