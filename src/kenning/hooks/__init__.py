"""Agent hooks: one entry point per tool event, answering in each tool's own format.

Keep imports here empty: the tool-call fast path must start in a few milliseconds.
"""
