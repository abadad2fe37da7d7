from django.urls import path

from . import views, views_io, views_stats

app_name = "author"
urlpatterns = [
    # Questions: list, editor, live preview, publishing.
    path("", views.question_list, name="index"),
    path("questions/new/", views.question_new, name="question_new"),
    path("questions/preview/", views.question_preview, name="question_preview"),
    path("questions/<slug:slug>/edit/", views.question_edit, name="question_edit"),
    path("questions/<slug:slug>/publish/", views.question_publish, name="question_publish"),
    path("from-step/", views.from_step, name="from_step"),
    # Problem reports. report_problem is for learners and anonymous visitors too: no
    # instructor check there.
    path("questions/<slug:slug>/report/", views.report_problem, name="report_problem"),
    path("reports/", views.reports, name="reports"),
    path("reports/<int:pk>/resolve/", views.report_resolve, name="report_resolve"),
    # Import/export and statistics.
    path("import/", views_io.import_page, name="import"),
    path("import/apply/", views_io.import_apply, name="import_apply"),
    path("export/", views_io.export_page, name="export"),
    path("stats/", views_stats.stats_index, name="stats"),
    path("stats/<slug:slug>/", views_stats.stats_question, name="stats_question"),
]
