"""The PostgreSQL backend: the store protocols on psycopg 3 and psycopg_pool, for a team server.

Importing this package imports no driver: psycopg loads with :mod:`kenning.store.postgres.db`,
which only a PostgreSQL entry point (or a test) reaches, so the CLI and the hooks start as
fast as before. Install it with the ``postgres`` extra (``pip install 'kenning[postgres]'``).
docs/store.md describes the schema, row-level security and how it distributes with Citus.
"""
