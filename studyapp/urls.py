from django.urls import include, path

from studyapp import views
from studyapp.notes import views as note_views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("notes/", include("studyapp.notes.urls")),
    path("glossary/", note_views.glossary_page, name="glossary"),
]
