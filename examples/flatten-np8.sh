#!/bin/sh
# make check: the example flatten on 8 ranks.
exec "$MPIRUN" 8 ./examples/flatten
