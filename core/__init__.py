"""Helpers every app may import: who owns a visitor's work (core.owners) and Markdown to safe
HTML (core.rendering). Imports go one way: core imports Django and libraries, never our apps."""
