"""The learner's dashboard, FSRS cards per concept, certainty, readiness.

Imports quizzes, core and studyapp.agentloop; nothing imports progress except the project
(studyapp). It hears about answers through quizzes.signals."""
