"""Running snippets: the runner, its worker process, the notebooks, the kernel check."""
