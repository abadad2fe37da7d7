from django.db import migrations

PERMISSIONS = [
    ("quizzes", "question", ("add", "change", "view")),
    ("quizzes", "option", ("add", "change", "delete", "view")),
]


def create_group(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Instructors")
    for app_label, model, actions in PERMISSIONS:
        for action in actions:
            perm = Permission.objects.filter(
                content_type__app_label=app_label, codename=f"{action}_{model}"
            ).first()
            if perm:
                group.permissions.add(perm)


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Instructors").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("quizzes", "0002_fix_kind"),
    ]
    operations = [migrations.RunPython(create_group, remove_group)]
