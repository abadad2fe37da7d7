"""English dates as the site has always shown them ("29 November 2026"); the other languages
use Django's own formats for their locale (e.g. "29 listopada 2026", "2026年11月29日")."""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATE_FORMAT = "Y-m-d"
