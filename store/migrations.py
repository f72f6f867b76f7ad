"""Bring a database schema to the newest revision whenever it is opened."""
from __future__ import annotations

from pathlib import Path

from alembic.config import Config
from sqlalchemy import Engine

from alembic import command

_HERE = Path(__file__).resolve().parent


def script_location() -> Path:
    """The alembic environment: top-level ``alembic/`` in a checkout, ``store/migrations`` in a wheel."""
    for candidate in (_HERE / "migrations", _HERE.parent / "alembic"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError("tsqe's alembic migration environment is missing from this installation")


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(script_location()))
    return config


def upgrade_to_head(engine: Engine) -> None:
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
