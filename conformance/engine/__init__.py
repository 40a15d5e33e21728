"""The engine: checks, the runner that plans and runs them, the seed policy and
the promises judge (docs/architecture.md#rooms). Imports core.
"""
