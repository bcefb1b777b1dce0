"""Create the first admin account from the environment, or say how to create one."""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create a superuser from DJANGO_SUPERUSER_USERNAME, DJANGO_SUPERUSER_PASSWORD and "
        "DJANGO_SUPERUSER_EMAIL when they are set and the user does not exist yet."
    )

    def handle(self, *args, **options):
        username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "")
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD", "")
        users = get_user_model().objects
        if username and password:
            if users.filter(username=username).exists():
                self.stdout.write(f"Admin: account '{username}' already exists; left as it is.")
                return
            users.create_superuser(username, os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), password)
            self.stdout.write(f"Admin: created account '{username}'; sign in at /admin/.")
            return
        if users.filter(is_superuser=True).exists():
            self.stdout.write("Admin: sign in at /admin/ with an existing superuser account.")
            return
        self.stdout.write(
            "Admin: no account yet. Create one with 'python manage.py createsuperuser', or set "
            "DJANGO_SUPERUSER_USERNAME and DJANGO_SUPERUSER_PASSWORD (and DJANGO_SUPERUSER_EMAIL) "
            "and run 'make run' again."
        )
