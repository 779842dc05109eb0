import sys

from compiler.compat.runner import main

sys.exit(main())
