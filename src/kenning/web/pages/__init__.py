"""The pages, one module each; every module exposes ``router``."""

from __future__ import annotations

from fastapi import APIRouter

from kenning.web.pages import decisions, filemap, health, memory, report, retire, review, rules, sessions

ROUTERS: list[APIRouter] = [m.router for m in (memory, review, retire, filemap, decisions, rules, health, sessions, report)]
