"""``python -m workbench``: see :mod:`workbench.cli`."""

from workbench.cli import main

raise SystemExit(main())
