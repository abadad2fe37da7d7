"""What quizzes announce, so that apps built on it (progress) listen instead of being imported."""

from django.dispatch import Signal

#: Sent after a practice answer is saved: ``request`` (its POST may carry the learner's stated
#: certainty) and ``response`` (the saved quizzes.Response). Progress reviews the FSRS card.
practice_answered = Signal()
