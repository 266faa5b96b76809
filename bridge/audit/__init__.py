"""The audit trail: one JSON line per ccbridge invocation, appended safely by many processes."""
