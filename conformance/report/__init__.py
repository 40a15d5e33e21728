"""The reports: text, JSON, JUnit and Markdown, and the files they are written
to (docs/architecture.md#rooms). Imports core and engine.
"""
