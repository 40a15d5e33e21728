"""The zoo: target factories, each usable as ``--target python:examples.providers.NAME:provider``.

Every module has ``BREAKS``: the one rule id it breaks, or ``None`` for a conforming target;
optionally ``ALSO_BREAKS``: rule ids that fail as a direct consequence of that breakage;
``SUBTLE = True`` marks bugs the checks' generated cases may miss and the fuzz campaign finds.
"""
