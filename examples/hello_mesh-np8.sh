#!/bin/sh
# make check: the example hello_mesh on 8 ranks.
exec "$MPIRUN" 8 ./examples/hello_mesh
