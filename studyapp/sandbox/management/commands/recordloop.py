"""manage.py recordloop: run a demo scenario against the real Messages API, save a transcript."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from studyapp.agentloop import contract, demo, models, runner, transcript


class Command(BaseCommand):
    help = (
        "Run a refund demo scenario headless with the live runner and write its transcript "
        "(loopcraft.transcript/1). Needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL is honoured."
    )

    def add_arguments(self, parser):
        parser.add_argument("--scenario", required=True, help=", ".join(demo.SCENARIOS))
        parser.add_argument(
            "--model",
            default=None,
            help="default: settings.ANTHROPIC_MODEL; a request this model rejects is not sent",
        )
        parser.add_argument("--tool-choice", default=None, help='JSON, e.g. {"type": "any"}')
        parser.add_argument(
            "--thinking",
            choices=("default", "on", "off"),
            default="default",
            help="default: leave thinking out; on/off: what the model accepts for it",
        )
        parser.add_argument("--max-turns", type=int, default=runner.Guards().max_turns)
        parser.add_argument("--max-tokens", type=int, default=1024)
        parser.add_argument("--out", required=True, help="the transcript file to write")

    def handle(self, *args, **options):
        try:
            params = demo.run_params(options["scenario"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        tool_choice = None
        if options["tool_choice"]:
            try:
                tool_choice = json.loads(options["tool_choice"])
            except ValueError as exc:
                raise CommandError(f"--tool-choice is not valid JSON ({exc}).") from None
        out = Path(options["out"])
        if not out.parent.is_dir():
            raise CommandError(f"--out: the folder {out.parent} does not exist.")
        if not runner.api_key_configured():
            raise CommandError(
                "ANTHROPIC_API_KEY is not set: recordloop calls the Messages API. Set it (and "
                "ANTHROPIC_BASE_URL for another endpoint) and run the command again."
            )
        model = options["model"] or settings.ANTHROPIC_MODEL
        thinking = None
        if options["thinking"] != "default":
            pick = models.thinking_on if options["thinking"] == "on" else models.thinking_off
            thinking = pick(model)
            if thinking is None:
                raise CommandError(
                    f"Nothing was sent to {model}: it has no way to turn thinking "
                    f"{options['thinking']} (see /notes/changes/#thinking-disabled)."
                )
            thinking = thinking or None  # {}: the model's default already does it
        try:
            run = runner.Run.new(
                runner.make_client(max_retries=2),
                model=model,
                max_tokens=options["max_tokens"],
                tool_choice=tool_choice,
                thinking=thinking,
                guards={"max_turns": options["max_turns"]},
                handlers=demo.make_handlers(),
                **params,
            )
        except runner.RunnerError as exc:
            raise CommandError(f"Nothing was sent to {model}: {exc}") from None
        for warning in models.check_request(
            model, run.next_request(), api_version=runner.API_VERSION
        ):
            if not warning.is_error:
                self.stderr.write(f"warning: {warning.message}")

        for result in run.run_to_end():
            turn = run.turns[result.turn] if result.turn is not None else None
            if turn is not None:
                names = [b.get("name") for b in turn["response"]["content"] if "name" in b]
                self.stdout.write(
                    f"step {result.turn}: stop_reason {turn['response'].get('stop_reason')}"
                    + (f", tools {', '.join(names)}" if names else "")
                )
            if result.error is not None:
                self._write(run, out)
                raise CommandError(f"Step {result.error.step} failed: {result.error.message}")
        self._write(run, out)
        findings = contract.check_transcript(
            transcript.parse_transcript(run.to_transcript(), strict=False)
        )
        for finding in findings:
            self.stdout.write(f"  {finding.severity} {finding.rule}: {finding.message}")
        usage = run.usage
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {out}: {len(run.turns)} turns, ended by {run.ended_by} "
                f"({run.ended_reason}), {usage['input_tokens']:,} input + "
                f"{usage['output_tokens']:,} output tokens, {len(findings)} checker findings."
            )
        )

    def _write(self, run, out):
        if run.turns:
            out.write_text(
                json.dumps(run.to_transcript(), indent=2, ensure_ascii=False) + "\n", "utf-8"
            )
