from django.urls import path

from . import views

app_name = "notes"
urlpatterns = [
    path("search/", views.search_page, name="search"),
    path("cheat-sheet/", views.cheat_sheet, name="cheat_sheet"),
    path("exam-blueprint/", views.exam_blueprint, name="blueprint"),
    path("", views.note_index, name="index"),
    path("changes/", views.changes, name="changes"),
    # Per visitor, never cached: loaded into the shared index and note pages by htmx.
    path("reading/", views.reading, name="reading"),
    path("<str:slug>/", views.note_detail, name="detail"),
    path("<str:slug>/read/", views.mark_read, name="read"),
    path("<str:slug>/check/<slug:question>/", views.check_answer, name="check"),
]
