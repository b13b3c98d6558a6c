"""Koudian's bots: the mahjong ones (engine.mahjong.bots), which read only the view."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core.contract import Bot
from engine.mahjong.bots import greedy_bot, random_bot

BOTS: Mapping[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
