"""The team server's HTTP interface (``kenning serve``): the REST API over the server store and
the sync layer. Thin: it parses, authorises and calls; the rules live in :mod:`kenning.sync`
and the core, the SQL in :mod:`kenning.store.server`."""
