import sys

from interop.reach.run import main

sys.exit(main())
