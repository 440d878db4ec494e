"""Row-level security: every table holds rows of many workspaces, and a connection sees one.

Each table carries ``workspace`` first in its primary key and one policy, ``workspace_only``:
a row is visible and writable only when its workspace is ``kenning_workspace()``, which is

- the workspace the role is bound to in ``kenning_role_workspaces`` (a login role a team
  server hands to one workspace cannot read another whatever it sets), else
- the workspace the transaction set (``kenning.workspace``, set by
  :meth:`kenning.store.postgres.db.Database.transaction`), else none: no rows.

The policies hold for every role but the tables' owner (who migrates; PostgreSQL exempts an
owner unless the table is forced) and superusers. kenning's application role, ``kenning_app``,
owns nothing: it is granted the rows of each table, under the policy.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from kenning.store.postgres.db import APP_ROLE, WORKSPACE_SETTING

# Run once, before any table: the application role, the role bindings, the function the
# policies call. current_user inside the function is the caller (it is not SECURITY DEFINER).
FOUNDATION = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'kenning needs the role {APP_ROLE}: as a superuser run CREATE ROLE {APP_ROLE} NOLOGIN';
END
$$;

CREATE TABLE kenning_role_workspaces (
    role_name TEXT COLLATE "C" PRIMARY KEY,
    workspace TEXT COLLATE "C" NOT NULL
);
ALTER TABLE kenning_role_workspaces ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_binding ON kenning_role_workspaces USING (role_name = current_user);
GRANT SELECT ON kenning_role_workspaces TO {APP_ROLE};
GRANT SELECT ON _migrations TO {APP_ROLE};

CREATE FUNCTION kenning_workspace() RETURNS TEXT LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
    SELECT coalesce(
        (SELECT b.workspace FROM kenning_role_workspaces b WHERE b.role_name = current_user),
        current_setting('{WORKSPACE_SETTING}', true)
    )
$fn$;
GRANT EXECUTE ON FUNCTION kenning_workspace() TO {APP_ROLE};
"""


def protect(*tables: str) -> str:
    """The statements that put each of ``tables`` under the workspace policy and grant its
    rows to the application role. (An identity column needs no grant of its sequence.)"""
    return "".join(
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
        f"CREATE POLICY workspace_only ON {table} USING (workspace = kenning_workspace())"
        f" WITH CHECK (workspace = kenning_workspace());\n"
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {APP_ROLE};\n"
        for table in tables
    )


def bind_role(conn: psycopg.Connection[Any], role: str, workspace: str) -> None:
    """Bind login ``role`` to ``workspace``: it reads and writes that workspace's rows only,
    whatever it sets. Run as the schema's owner; ``role`` must be a member of kenning_app."""
    conn.execute(
        "INSERT INTO kenning_role_workspaces (role_name, workspace) VALUES (%s, %s)"
        " ON CONFLICT (role_name) DO UPDATE SET workspace = excluded.workspace",
        (role, workspace),
    )


def unbind_role(conn: psycopg.Connection[Any], role: str) -> None:
    conn.execute("DELETE FROM kenning_role_workspaces WHERE role_name = %s", (role,))


def grant_app_role(conn: psycopg.Connection[Any], role: str) -> None:
    """Make login ``role`` a member of kenning_app (needs CREATEROLE or a superuser)."""
    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(APP_ROLE), sql.Identifier(role)))
