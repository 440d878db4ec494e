"""Storage: the :class:`~kenning.store.protocol.Store` protocol and its backends."""
