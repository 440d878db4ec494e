"""Sync between a machine's local store and the team server (docs/server.md).

:mod:`.wire` is the protocol both sides speak, :mod:`.records` turns local rows into records
and back, :mod:`.apply` is what the server does with a pushed batch (the memory model's
rules, not last-writer-wins), and :mod:`.client` is the machine's side: push, then pull.
"""
