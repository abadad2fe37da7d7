"""Moved to core.rendering; this name stays until every branch imports from there."""

from core.rendering import *  # noqa: F403
from core.rendering import Rendered, render_inline, render_markdown, sanitize  # noqa: F401
