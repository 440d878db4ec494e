"""Where kenning keeps its data, and the settings an entry point builds once.

Only entry points (CLI main, MCP main, hook main) call :func:`load_settings`; everything
below them receives a :class:`Settings` explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_HOME = "KENNING_HOME"
DB_FILENAME = "kenning.db"
DEFAULT_WORKSPACE = "local"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data folder: ``$KENNING_HOME`` when set, else the platform's user data folder.

    One function decides this so that tests (which set ``KENNING_HOME``) can never touch a
    real user's store.
    """
    env = os.environ if env is None else env
    override = env.get(ENV_HOME, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs  # here, not at the top: hooks build Settings on every run and never need it

    return Path(platformdirs.user_data_dir("kenning", appauthor=False))


@dataclass(frozen=True)
class Settings:
    home: Path
    workspace: str = DEFAULT_WORKSPACE

    @property
    def db_path(self) -> Path:
        return self.home / DB_FILENAME

    @property
    def hook_log(self) -> Path:
        return self.home / "hook-runs.log"

    @property
    def identity_file(self) -> Path:
        return self.home / "identity.txt"


def load_settings(env: Mapping[str, str] | None = None, home: Path | None = None) -> Settings:
    env = os.environ if env is None else env
    workspace = env.get("KENNING_WORKSPACE", "").strip() or DEFAULT_WORKSPACE
    return Settings(home=home if home is not None else data_dir(env), workspace=workspace)
