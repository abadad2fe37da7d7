from django.urls import path

from . import views

app_name = "quizzes"
urlpatterns = [
    path("practice/", views.practice_start, name="practice"),
    path("practice/<int:pk>/<int:position>/", views.practice_question, name="practice_question"),
    path("practice/<int:pk>/done/", views.practice_done, name="practice_done"),
    path("traps/", views.traps, name="traps"),
    path("exam/", views.exam_start, name="exam_start"),
    path("exam/<int:pk>/q/<int:position>/", views.exam_question, name="exam_question"),
    path("exam/<int:pk>/q/<int:position>/flag/", views.exam_flag, name="exam_flag"),
    path("exam/<int:pk>/summary/", views.exam_summary, name="exam_summary"),
    path("exam/<int:pk>/submit/", views.exam_submit, name="exam_submit"),
    path("exam/<int:pk>/results/", views.exam_results, name="exam_results"),
    path("exam/<int:pk>/retake/", views.exam_retake, name="exam_retake"),
]
