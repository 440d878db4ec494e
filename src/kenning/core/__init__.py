"""The core library: remember, recall, lifecycle, policies, decisions and reviews.

Adapters use :class:`kenning.core.service.Core`; tests may call the modules directly.
"""
