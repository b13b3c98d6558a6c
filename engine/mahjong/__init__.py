"""Mahjong machinery shared by the koudian, wuhan and jj rulesets: tiles, hand analysis, wall, turns."""
