from django.urls import path  # noqa: F401

app_name = "author"
# Views are added by the authoring, import/export and statistics work; each under /author/.
urlpatterns: list = []

# Authoring (issue 6 items 2, 5, 6).
from . import views  # noqa: E402

urlpatterns += [
    path("", views.question_list, name="index"),
    path("questions/new/", views.question_new, name="question_new"),
    path("questions/preview/", views.question_preview, name="question_preview"),
    path("questions/<slug:slug>/edit/", views.question_edit, name="question_edit"),
    path("questions/<slug:slug>/publish/", views.question_publish, name="question_publish"),
    path("questions/<slug:slug>/v/<int:version>/", views.question_version, name="question_version"),
    # For learners and anonymous visitors too: the view has no instructor check.
    path("questions/<slug:slug>/report/", views.report_problem, name="report_problem"),
    path("reports/", views.reports, name="reports"),
    path("reports/<int:pk>/resolve/", views.report_resolve, name="report_resolve"),
    path("from-step/", views.from_step, name="from_step"),
]

# Import/export and statistics (issue 6 items 3 and 4).
from . import views_io, views_stats  # noqa: E402

urlpatterns += [
    path("import/", views_io.import_page, name="import"),
    path("import/apply/", views_io.import_apply, name="import_apply"),
    path("export/", views_io.export_page, name="export"),
    path("stats/", views_stats.stats_index, name="stats"),
    path("stats/<slug:slug>/", views_stats.stats_question, name="stats_question"),
]

# The grading queue for answers with no automatic grade (issue 13).
from . import views_grading  # noqa: E402

urlpatterns += [
    path("grading/", views_grading.grading_queue, name="grading"),
    path("grading/<int:pk>/", views_grading.grading_grade, name="grading_grade"),
]
