"""Helpers every app may import: who owns a visitor's work (core.owners), Markdown to safe HTML
(core.rendering) and the exam-vs-today lines generated from the model catalogue (core.today).
Imports go one way: core imports Django, libraries and the pure studyapp.agentloop, never our
apps."""
