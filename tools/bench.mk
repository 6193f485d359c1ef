# tools/bench.mk: dmesh-bench and the sweep script (included by Makefile.am).
