"""How the kit reaches a target: the built-in target, the HTTP client and
server, cmd: launchers and the loopback plumbing
(docs/architecture.md#rooms). Imports core.
"""
