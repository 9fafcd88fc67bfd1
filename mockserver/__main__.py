"""`python -m mockserver` runs the command line."""

from mockserver.cli import main

raise SystemExit(main())
