#!/bin/sh
# make check: the example expert_parallel on 8 ranks.
exec "$MPIRUN" 8 ./examples/expert_parallel
