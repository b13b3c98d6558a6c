"""`python -m cli ...` is the `qipai` command."""

import sys

from cli.main import main

sys.exit(main())
