"""What quizzes announce, so that apps built on it (progress) listen instead of being imported."""

from django.db import transaction
from django.dispatch import Signal

#: Sent after a practice answer is saved: ``request`` (its POST may carry the learner's stated
#: certainty) and ``response`` (the saved quizzes.Response). Progress reviews the FSRS card.
practice_answered = Signal()

#: Sent once the transaction that wrote a question version, or published one in place, has
#: committed (never for a preview, which is rolled back); no arguments. The project listens and
#: moves the content version of its cached pages (a note page ends with questions of the bank).
bank_changed = Signal()


def announce_bank_changed() -> None:
    """Send ``bank_changed`` when the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: bank_changed.send(sender=None))
