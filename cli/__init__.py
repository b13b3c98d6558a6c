"""The `qipai` command line: serves the services and runs the tools in `clients`.

The top of the dependency graph: it reads the settings (services.config) and hands the
clients what they need (the server's address, the token secret), so clients never import
services.
"""
