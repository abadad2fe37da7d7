from django.urls import path

from . import views

app_name = "progress"
urlpatterns = [
    path("me/", views.dashboard, name="dashboard"),
    path("review/", views.review, name="review"),
    path("review/start/", views.review_start, name="review_start"),
    path("review/retention/", views.retention, name="retention"),
    path("review/ahead/", views.study_ahead, name="study_ahead"),
    path("review/cards/", views.flashcard_review, name="flashcards"),
    path("review/loopcraft.apkg", views.anki_export, name="anki_export"),
]
