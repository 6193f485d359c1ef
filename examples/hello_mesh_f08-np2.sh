#!/bin/sh
# make check: the example hello_mesh_f08 on 2 ranks.
exec "$MPIRUN" 2 ./examples/hello_mesh_f08
