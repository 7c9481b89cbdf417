"""Same numbers on every machine: pin the CPU kernels torch, MKL and numpy compute with.

torch picks its CPU kernels by the machine (default / AVX2 / AVX-512) and MKL picks its
own code path; a few hundred training steps turn their last-bit differences into
different trained models. numpy does the same twice: its OpenBLAS picks matrix-product
kernels by CPU model (SkylakeX on an AVX-512 machine, Haswell or Zen on an AVX2 one), and
its own functions (exp, log, ...) take AVX-512 code paths where the CPU has them; both
change last bits. All of them read their choice from the environment once — torch when it
first computes, numpy when it is imported — so ``import explainer`` (which calls ``pin()``)
comes first, *before* ``import numpy`` and ``import torch``. An explicitly set variable always wins (``setdefault``): that is how
the cross-kernel check runs the same snippets under ``ATEN_CPU_CAPABILITY=default``.

Exact reproduction holds on x86-64 machines with AVX2; on other CPUs (ARM, or x86
without AVX2) nothing is pinned and trained numbers agree only within their spread.
"""

import os
import platform
import subprocess
import sys
import warnings

# numpy's AVX-512 dispatch targets, under the names of numpy 2.x and of numpy 1.x (a name
# this machine or this numpy lacks is ignored)
NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL"

PINNED = {"ATEN_CPU_CAPABILITY": "avx2",             # torch's own kernels
          "MKL_CBWR": "AVX2",                        # MKL's reproducibility mode (matrix products)
          "ONEDNN_MAX_CPU_ISA": "AVX2",              # oneDNN, which some torch operators use
          "OPENBLAS_CORETYPE": "Haswell",            # numpy's OpenBLAS (matrix products)
          "NPY_DISABLE_CPU_FEATURES": NUMPY_AVX512}  # numpy's own functions


def has_avx2() -> bool:
    """Whether this CPU runs AVX2 code (an x86-64 feature, read without importing torch)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
                return any(line.startswith("flags") and " avx2" in line for line in cpuinfo)
        if sys.platform == "darwin":
            features = subprocess.run(["sysctl", "-n", "machdep.cpu.leaf7_features"],
                                      capture_output=True, text=True, check=False).stdout
            return "AVX2" in features.upper().split()
    except OSError:
        return False
    return False


def pinned() -> dict[str, str]:
    """The kernel settings this machine computes with: explicit ones first, else the pin."""
    defaults = PINNED if has_avx2() else {}
    return {name: os.environ.get(name, defaults.get(name, "")) for name in PINNED}


def pin() -> None:
    """Set the pinned kernels unless the environment already names others. Warns when torch
    was imported earlier with other kernels (then the pin comes too late to take effect)."""
    if not has_avx2():
        return
    unset = [name for name in PINNED if name not in os.environ]
    for name, value in PINNED.items():
        os.environ.setdefault(name, value)
    if "numpy" in sys.modules and {"OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES"} & set(unset):
        warnings.warn("numpy was imported before explainer and computes with this CPU's own kernels: "
                      "import explainer first to get the site's numbers exactly", stacklevel=3)
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "backends"):
        wanted = os.environ["ATEN_CPU_CAPABILITY"].upper()
        actual = torch.backends.cpu.get_cpu_capability().upper()
        if actual != wanted:
            warnings.warn(f"torch was imported before explainer and computes with {actual} kernels, "
                          f"not {wanted}: import explainer first to get the site's numbers exactly",
                          stacklevel=3)
