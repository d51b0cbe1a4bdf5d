"""The package version: the single place it is written (hatchling reads it from here when it builds)."""

__version__ = "0.2.0a1"
