"""`python -m pipelines.commands ...` is the `graphfeed` console script."""

import sys

from pipelines.commands import main

sys.exit(main())
