"""Goal authority: long-running goals whose authority comes from provenance, not from text.

The core (errors, model, rules, authority, request, store, keeper) has no Claude Code, click or
pydantic dependency; `cc` maps Claude Code hook events onto it and `cli` is the model-facing
`ccbridge goal` command group.
"""
