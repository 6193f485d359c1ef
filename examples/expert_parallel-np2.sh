#!/bin/sh
# make check: the example expert_parallel on 2 ranks.
exec "$MPIRUN" 2 ./examples/expert_parallel
