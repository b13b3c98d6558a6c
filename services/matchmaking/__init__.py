"""Matchmaking: public queues, private rooms, ratings (docs/design.md, "Matchmaking")."""
