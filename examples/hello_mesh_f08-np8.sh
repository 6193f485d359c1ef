#!/bin/sh
# make check: the example hello_mesh_f08 on 8 ranks.
exec "$MPIRUN" 8 ./examples/hello_mesh_f08
