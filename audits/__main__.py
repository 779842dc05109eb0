import sys

from audits.cli import main

sys.exit(main())
