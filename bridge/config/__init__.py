"""ccbridge's configuration: the schema (pydantic, slow path only), where files are found and how
layers combine, and the compiled form the hot path reads as plain JSON (bridge.wire.jsonio)."""
