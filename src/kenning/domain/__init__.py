"""The pure domain: the rules of memory that need nothing but their arguments.

Lifecycle (shelf life, resting, who may receive a memory), the write rules a memory must pass,
how a trigger or citation matches a tool call, what a recall query asks, how a new memory meets
the ones it resembles, the holdout split, presence windows, the one-line wording of a memory,
and Welch's comparison of two groups.

What lives here reads no store, takes no :class:`~kenning.core.service.Core`, reads no clock
(``now`` is an argument) and no environment: only its arguments and the platform modules under
it (``kenning.model``, ``kenning.text``, ``kenning.quoting``, ...). ``matching.relative`` alone
looks at the file system, to resolve a symlinked path. The hooks' fast path imports these
modules without the core, so this package imports nothing at import time.

The code that reads and writes the stores, or takes the whole ``Core``, is :mod:`kenning.core`;
``tests/test_architecture.py`` holds the line.
"""
