"""A worker process of tools/running/snippet_runner.py: it imports the modules every snippet needs
(numpy, torch, matplotlib) once, then runs each snippet it is sent in a forked child, so a
snippet starts in milliseconds instead of paying ~2 s of imports.

Protocol (one JSON object per line): the runner writes {"path": …, "output_dir": …};
a request may add "env" (e.g. {"EXPLAINER_SEEDS": "16"}) to the child's environment and
"cpu_seconds", the CPU time the child may use (it then exits with CPU_LIMIT_EXIT);
the worker answers {"pid": …} when the child starts and {"exit": code} when it ends.
The child's stdout and stderr go to output_dir/stdout.txt and stderr.txt.
EXPLAINER_WORKER_PRELOAD=0 in the worker's environment skips importing torch and matplotlib
before the first fork (the runner's tests, whose snippets need neither).
"""

import importlib
import json
import math
import os
import resource
import shutil
import signal
import sys
import tempfile
import traceback
from pathlib import Path

CPU_LIMIT_EXIT = 124  # tools/running/snippet_runner.py reads this exit as "out of CPU time"

PRELOAD = ("numpy", "torch", "torch.func", "matplotlib", "matplotlib.pyplot",
           "matplotlib.backends.backend_svg", "scipy.stats", "safetensors.torch")


def warm_up(snippets_dir: str, preload: bool = True) -> None:
    """Pay once, before any fork, what every snippet would otherwise pay itself: the
    shared package, torch's optimiser machinery (its first optimiser imports torch._dynamo,
    ~1.2 s) and matplotlib's fonts (the CJK font file is parsed on first use).
    Without ``preload`` (the runner's own tests, whose snippets import none of them) only
    the shared package is imported: the rest costs ~8 s per worker."""
    import io
    import pkgutil

    sys.path.insert(0, snippets_dir)
    try:  # before torch, as every snippet imports it (the runner has set the pinned kernels too)
        importlib.import_module("explainer")
    except ImportError:  # a snippets folder without the shared package
        pass
    sys.path.remove(snippets_dir)
    package = os.path.join(snippets_dir, "explainer")
    sys.path.insert(0, snippets_dir)
    for module in pkgutil.iter_modules([package]) if os.path.isdir(package) else []:
        try:
            importlib.import_module(f"explainer.{module.name}")
        except Exception:  # noqa: BLE001 — the snippet that imports it will show the error
            pass
    sys.path.remove(snippets_dir)  # each snippet puts its own folder first, as python would
    if not preload:
        return
    for name in PRELOAD:
        importlib.import_module(name)
    import matplotlib.pyplot as plt  # after the shared package has set its fonts
    import torch

    torch.optim.AdamW([torch.zeros(1, requires_grad=True)])
    fig, ax = plt.subplots()
    ax.set_title("Attention 注意力")
    fig.savefig(io.BytesIO(), format="svg")
    plt.close(fig)


class CPUTimeLimit(BaseException):
    """Raised in a snippet when it has used its CPU time (SIGXCPU), so Python prints where."""


def _out_of_cpu_time(signum, frame):
    raise CPUTimeLimit("the snippet used up its CPU time")


def limit_cpu_time(seconds: float) -> None:
    """SIGXCPU after ``seconds`` of this process's CPU time (a forked child starts from 0),
    then SIGKILL 30 s later if the snippet is stuck where Python cannot raise."""
    signal.signal(signal.SIGXCPU, _out_of_cpu_time)
    soft = max(1, math.ceil(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 30))


def run_snippet(path: str, output_dir: str) -> int:
    """In the forked child: run the snippet's cells as its notebook would, from an empty
    folder outside the checkout (a snippet that reads the checkout's files would fail in
    Colab, so it fails here)."""
    workdir = tempfile.mkdtemp(prefix="snippet-")
    os.chdir(workdir)
    os.environ["EXPLAINER_OUTPUT_DIR"] = output_dir
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        target = os.open(os.path.join(output_dir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # fd 0 is the worker's request pipe: not for the snippet
    os.close(devnull)
    try:
        # Cell by cell, as its notebook runs them, noting what each cell printed and
        # drew: the notebooks show the outputs of this run (tools/running/notebooks.py, cells.json).
        notebooks.run(Path(path), Path(output_dir))
        return 0
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except CPUTimeLimit:
        traceback.print_exc()
        return CPU_LIMIT_EXIT
    except BaseException:  # noqa: BLE001 — print it as Python would, so the runner can say where
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    global notebooks
    from tools.running import notebooks  # noqa: F401 — before the checkout leaves the path

    # python -m put the checkout's root (the runner's cwd) first: snippets see no tools/
    sys.path.remove(str(Path(__file__).resolve().parents[2]))
    warm_up(sys.argv[1], preload=os.environ.get("EXPLAINER_WORKER_PRELOAD", "1") != "0")
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            # Ctrl+C raises KeyboardInterrupt in the snippet, so Python prints where the runner
            # stopped it, even when the build was started in the background (a shell's `&`
            # starts it with SIGINT ignored, and a forked child inherits that).
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.environ.update(request.get("env", {}))
            if request.get("cpu_seconds"):
                limit_cpu_time(request["cpu_seconds"])
            os._exit(run_snippet(request["path"], request["output_dir"]))
        print(json.dumps({"pid": pid}), file=answers, flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"exit": os.waitstatus_to_exitcode(status)}), file=answers, flush=True)


if __name__ == "__main__":
    main()
