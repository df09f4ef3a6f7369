"""``python -m citeaudit``."""

from citeaudit.cli import main

raise SystemExit(main())
