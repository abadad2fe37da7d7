"""Instructor pages: editor, preview, versions, import/export, statistics, problem reports.

Imports quizzes, studyapp.sandbox, studyapp.notes, core and studyapp.agentloop; no app imports
authoring (templates link to its URLs by name)."""
