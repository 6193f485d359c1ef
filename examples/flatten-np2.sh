#!/bin/sh
# make check: the example flatten on 2 ranks.
exec "$MPIRUN" 2 ./examples/flatten
