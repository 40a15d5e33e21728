"""Fuzz."""
