"""Bots worth playing against, by level (docs/rulesets.md, "Bots").

One concept per module: `levels` (easy / normal / strong and the bot of each level for a
ruleset), `visible` (the tiles a seat has not seen), `acceptance` (受入: the live tiles that bring a
hand closer), `safety` (how dangerous a discard is to a seat that is ready or shows a big hand),
`mahjong` (the strong mahjong player the three mahjong rulesets configure), `daqi` (打七's strong
player). Every bot reads only its seat's view and chooses among that seat's legal commands.
"""
