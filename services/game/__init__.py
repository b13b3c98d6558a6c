"""The game service: tables as event-sourced aggregates around the engine's rulesets."""
