"""`manage.py liveworker`: run queued live API calls (LIVE_JOBS=external), off every web process."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor

from django.core.management.base import BaseCommand

from studyapp.sandbox import jobs


class Command(BaseCommand):
    help = (
        "Claim and run queued live-mode API calls (jobs on the server's key) until stopped. "
        "Run one or more next to the web servers when LIVE_JOBS=external."
    )

    def add_arguments(self, parser):
        parser.add_argument("--threads", type=int, default=4, help="calls at once (default 4)")
        parser.add_argument("--poll", type=float, default=0.5, help="seconds between looks")
        parser.add_argument("--once", action="store_true", help="run what is queued now, then exit")

    def handle(self, *args, threads: int, poll: float, once: bool, **options):
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        running: dict[int, object] = {}
        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="live") as pool:
            while not stopping:
                jobs.expire_stale()
                for pk, future in list(running.items()):
                    if future.done():
                        running.pop(pk)
                started = 0
                while len(running) < threads:
                    pk = jobs.next_queued()
                    if pk is None or pk in running:
                        break
                    # claim first (a conditional UPDATE), so two workers never run one job
                    if not jobs.claim(pk, jobs.worker_name()):
                        continue
                    running[pk] = pool.submit(jobs.run_claimed_in_thread, pk)
                    started += 1
                if once and not running:
                    break
                if once and not started:
                    pool.shutdown(wait=True)
                    break
                time.sleep(poll)
        self.stdout.write("liveworker: stopped")
