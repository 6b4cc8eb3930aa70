"""`python -m accountant.cli`: the same as the `shuffle-accountant` console script."""

from accountant.cli.main import main

raise SystemExit(main())
