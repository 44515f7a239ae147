"""The benchmark runner behind benchmarks/run.py (`make bench`); see benchmarks/README.md."""
