"""Matchmaking: public queues, private rooms, ratings (DESIGN.md "Matchmaking")."""
