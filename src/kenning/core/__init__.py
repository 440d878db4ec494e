"""The core library: what reads or writes the stores, or takes the whole :class:`Core` —
remember, recall, policies, decisions, reviews, work, rules, health, citations, outcomes.

Adapters use :class:`kenning.core.service.Core`; tests may call the modules directly. The pure
rules these apply (lifecycle, write rules, matching, query parsing, merging) are
:mod:`kenning.domain`, which imports nothing of this package.
"""
