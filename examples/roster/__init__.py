"""A roster plugin for the reference runtime (docs/promises.md): twelve roles behind one
``delegate`` tool, each role a start request with a persona, a tool allow list and ``maxDepth``
1, in the request-controls edition. ``promises.toml`` is what it promises for every role;
``broken.py`` holds variants that break a promise each.

Run: ``subagent-tck promises --target python:examples.roster.target:make_target
examples/roster/promises.toml``.
"""
