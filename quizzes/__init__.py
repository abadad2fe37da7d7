"""The question bank, attempts, grading, practice and mock exams, import/export, item statistics.

Imports core and studyapp.agentloop only. Apps built on it listen to quizzes.signals (progress
reviews a card on ``practice_answered``) instead of being imported from here."""
