import os
import sys

from coderl.cli import main

code = main()
if int(os.environ.get("WORLD_SIZE", "1")) > 1:  # a process of `accelerate launch -m coderl`: end it without the
    from coderl.train.distributed import exit_process  # interpreter's finalisation, which gloo's threads can abort

    exit_process(code)
sys.exit(code)
