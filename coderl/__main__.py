import sys

from coderl.cli import main

sys.exit(main())
