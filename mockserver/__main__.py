"""`python -m mockserver` runs the command line."""

from mockserver.cli.main import main

raise SystemExit(main())
