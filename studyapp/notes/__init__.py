"""Topic notes from content/notes, rendered once per file change and sanitised; the glossary.

Imports core and studyapp.agentloop only."""
