import sys

from guide_tui.cli import main

sys.exit(main())
