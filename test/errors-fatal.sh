#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# errors-fatal.sh NP: dmesh's errors as a program meets them when it keeps
# MPI's default handlers (fatal) and checks nothing, at NP ranks:
#   - errors_fatal fatal: the launcher fails, stderr has dmesh's detail
#     ("dmesh: dmesh_init failed on rank R of its communicator: ..."), on
#     exactly one line for the job (one rank writes an agreed outcome), and
#     the line after the call never comes;
#   - errors_fatal some: the same when rank 0's arguments are good, its one
#     line written by rank 1, the lowest rank that failed;
#   - errors_fatal self: the same for a call tied to no communicator
#     (MPI_COMM_SELF's handler), whose line names the MPI_COMM_WORLD rank
#     ("dmesh: dmesh_get_ndims failed on rank R of MPI_COMM_WORLD: ...");
#   - errors_fatal return under DMESH_ERRORS=return: the class comes back
#     and the program ends well; layout calls before MPI_Init and after
#     MPI_Finalize return their class in every mode;
#   - with Fortran, both modules: dmesh_init without ierror ends the job
#     the same way, a handler of the program's runs once with a code that
#     dmesh_error_class maps back, and names of different sizes on different
#     ranks give DMESH_ERR_NAME on every rank, with the same detail, without
#     a hang.
# Every run is bounded (DMESH_TEST_TIMEOUT): a hang fails.
. "$top_srcdir/test/check.sh"
np=${1:-2}
DMESH_TEST_TIMEOUT=${DMESH_TEST_TIMEOUT_FATAL:-60}
export DMESH_TEST_TIMEOUT
unset DMESH_ERRORS
# The plain launch, whatever the suite runs under (--with-ft ulfm in the
# flags, DMESH_TEST_MPIEXEC_FLAGS, or in the launcher itself, configure's
# MPIEXEC: mpirun.sh takes it out of both): launched with --with-ft ulfm,
# Open MPI 5.0.7 ends neither the job nor with a failing status when a
# process ends abnormally (the user guide, "A fatal error under --with-ft
# ulfm"), also after its own MPI_Abort at 1 rank.
DMESH_TEST_LAUNCH=plain
export DMESH_TEST_LAUNCH
[ "$("$MPIRUN" --launch)" = plain ] || check_fail "DMESH_TEST_LAUNCH=plain: mpirun.sh still launches with --with-ft ulfm"

# expect_fatal WHAT DETAIL PROGRAM ARG: the job fails, DETAIL on its output,
# no "after the call" line.
expect_fatal() {
    what=$1
    detail=$2
    shift 2
    out=$("$MPIRUN" "$np" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed "s/^/$what: /"
    [ "$rc" -ne 77 ] || check_skip "the launcher skipped"
    # MPICH 4.2's launcher, once in a while, exits 0 after its processes
    # aborted ("Fatal error in ..."): the abort is what counts then
    if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out" | grep -q 'Fatal error in MPI_Comm_call_errhandler'; then
        check_fail "$what: the job ended well (want a failure)"
    fi
    check_in_bound "$rc" "$what"
    printf '%s\n' "$out" | grep -qF -- "$detail" || check_fail "$what: no \"$detail\" on its output"
    if printf '%s\n' "$out" | grep -q 'after the call'; then
        check_fail "$what: a line after the failing call was printed"
    fi
}

# expect_lines WHAT PATTERN N: N lines of the last run's output match PATTERN.
expect_lines() {
    got=$(printf '%s\n' "$out" | grep -cF -- "$2")
    [ "$got" -eq "$3" ] || check_fail "$1: $got lines with \"$2\" (want $3)"
}

expect_fatal "C, MPI_COMM_WORLD" "cannot fill a communicator of $np ranks" ./test/errors_fatal fatal
expect_lines "C, MPI_COMM_WORLD" "dmesh: dmesh_init failed on rank " 1
if [ "$np" -gt 1 ]; then
    expect_fatal "C, some ranks" "cannot fill a communicator of $np ranks" ./test/errors_fatal some
    expect_lines "C, some ranks" "dmesh: dmesh_init failed on rank 1 of its communicator (found on rank 1)" 1
    expect_lines "C, some ranks" "dmesh: dmesh_init failed on rank " 1
fi
# each rank fails alone here: the first abort may end the others' lines
expect_fatal "C, MPI_COMM_SELF" "of MPI_COMM_WORLD: mesh is DMESH_NULL" ./test/errors_fatal self

out=$(DMESH_ERRORS=return "$MPIRUN" "$np" ./test/errors_fatal return 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/DMESH_ERRORS=return: /'
[ "$rc" -eq 0 ] || check_fail "DMESH_ERRORS=return: exit $rc (want 0)"
n=$(printf '%s\n' "$out" | grep -c 'after the call: returned DMESH_ERR_SIZE')
[ "$n" -eq "$np" ] || check_fail "DMESH_ERRORS=return: $n ranks returned DMESH_ERR_SIZE (want $np)"

for f in errors_fatal_fortran errors_fatal_f08; do
    [ -x "./test/$f" ] || continue
    expect_fatal "$f" "dmesh: dmesh_init failed on rank " "./test/$f" fatal
    expect_lines "$f" "dmesh: dmesh_init failed on rank " 1
    out=$("$MPIRUN" "$np" "./test/$f" sizes 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed "s/^/$f sizes: /"
    [ "$rc" -eq 0 ] || check_fail "$f sizes: exit $rc (want 0; 124: a hang)"
    want="class 3, null T: rank 0: dmesh_init: names has 3 elements, the mesh has 2 dimensions"
    n=$(printf '%s\n' "$out" | grep -cF -- "$want")
    [ "$n" -eq "$np" ] || check_fail "$f sizes: $n ranks said \"$want\" (want $np)"
    out=$("$MPIRUN" "$np" "./test/$f" handler 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed "s/^/$f handler: /"
    [ "$rc" -eq 0 ] || check_fail "$f handler: exit $rc (want 0)"
    n=$(printf '%s\n' "$out" | grep -cF -- "handler calls 1, class 2, null T")
    [ "$n" -eq "$np" ] || check_fail "$f handler: $n ranks had one call of class 2 (want $np)"
done
check_exit
