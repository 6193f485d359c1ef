#!/bin/sh
# make check: the example hello_mesh_fortran on 8 ranks.
exec "$MPIRUN" 8 ./examples/hello_mesh_fortran
