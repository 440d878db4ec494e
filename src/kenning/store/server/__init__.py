"""The team server's own tables: accounts, workspaces and members, device tokens (hashed),
invites, device codes, and the synced records with their sequence numbers and batches.

:mod:`.protocol` is all the server and the sync layer see; :mod:`.postgres` implements it.
"""
