import os

# numpy's OpenBLAS starts a thread per core for a matrix product (the odds read their draws
# off a grid with one) and keeps them spinning while they wait: in a web worker that doubled
# the CPU an API create costs (benchmarks/bench_pages.py). One thread per process: gunicorn's
# workers are the parallelism. Read when numpy loads, so set before anything imports it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
