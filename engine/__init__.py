"""Pure game rules: no I/O, no clock, no global random, no imports from services."""
