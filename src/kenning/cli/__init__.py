"""The ``kenning`` command: one module per command group, each a thin shell over the core."""
