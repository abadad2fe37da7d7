"""The project: settings, URLs, the home page, sign-up, rate limits and ``loadcontent``.

It may import every app; the apps never import its modules (they share core instead). The
apps inside this package (notes, sandbox, agentloop) are separate units with their own rules."""
