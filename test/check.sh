# SPDX-License-Identifier: BSD-3-Clause
# test/check.sh: the checks shared by the shell tests, sourced by each of them
# (. "$top_srcdir/test/check.sh"; make check exports top_srcdir). A test runs
# from the build directory, records each failed check and goes on, and ends
# with check_exit: status 1 when a check failed, else 0. check_skip ends it
# at once with 77, automake's "skipped".

check_failed=0

# check_fail MESSAGE...: print "FAIL: MESSAGE" and record the failure.
check_fail() {
    echo "FAIL: $*"
    check_failed=1
}

# check_skip MESSAGE...: skip the whole test.
check_skip() {
    echo "skipped: $*"
    exit 77
}

# check_need COMMAND...: skip the test unless every COMMAND is found.
check_need() {
    for check_cmd in "$@"; do
        command -v "$check_cmd" >/dev/null 2>&1 || check_skip "no $check_cmd"
    done
}

# check_expect STATUS TEXT COMMAND [ARG]...: COMMAND exits with STATUS and
# prints TEXT (a fixed string) on its stdout or stderr.
check_expect() {
    check_status=$1
    check_text=$2
    shift 2
    check_out=$("$@" 2>&1)
    check_rc=$?
    if [ "$check_rc" -ne "$check_status" ] ||
        ! printf '%s\n' "$check_out" | grep -qF -- "$check_text"; then
        check_fail "$* gave $check_rc (want $check_status) and output:"
        printf '%s\n' "$check_out"
        echo "(want the text: $check_text)"
    fi
}

# check_in_bound STATUS WHAT: STATUS, a launch's through test/mpirun.sh, is
# not 124, mpirun.sh's status for a launch that ran past its bound (a hang;
# it says so on stderr), whatever else the test accepts: records the failure
# and returns 1 when it is.
check_in_bound() {
    [ "$1" -ne 124 ] && return 0
    check_fail "$2: exit 124: it ran past its bound (a hang)"
    return 1
}

# check_fails_in_bound STATUS WHAT: STATUS, a launch's through
# test/mpirun.sh that must fail, is a failure: not 0, and not a hang
# (check_in_bound). Records the failure and returns 1 otherwise.
check_fails_in_bound() {
    if [ "$1" -eq 0 ]; then
        check_fail "$2: exit 0 (want a failure)"
        return 1
    fi
    check_in_bound "$@"
}

# check_pc NAME: NAME's value in the build tree's dmesh.pc, a variable
# (NAME=value) or a field (NAME: value).
check_pc() {
    sed -n -e "s/^$1=//p" -e "s/^$1: *//p" dmesh.pc
}

# check_pc_mpi_cflags: the MPI's compile flags that dmesh.pc carries (its
# Cflags after dmesh's own include directory): a plain compiler needs them,
# an MPI wrapper does not mind them.
check_pc_mpi_cflags() {
    sed -n 's/^Cflags: *-I\${includedir} *//p' dmesh.pc
}

# check_respawn_mpi NAME: end the test (its checks so far decide) where the
# MPI cannot start processes under fault tolerance: without ULFM in the
# build, and under Open MPI 6.0.0 (6.0.0rc2 measured, Debian 14), where a
# process spawned under --with-ft ulfm fails in MPI_Init ("none of them said
# that they could be used for iagree on a new communicator") and the
# launcher ends the whole job with it (the ULFM tutorial's replace, without
# dmesh, fails the same way). Otherwise sets DMESH_TEST_MPIEXEC_FLAGS to
# --with-ft ulfm.
check_respawn_mpi() {
    if ! grep -q '^#define DMESH_HAVE_ULFM 1' config.h; then
        echo "$1: runs with a failure skipped (no ULFM in this build)"
        check_exit
    fi
    case $("$MPIRUN" --version) in
    *"Open MPI) 6.0.0"*)
        echo "$1: runs with a failure skipped: Open MPI 6.0.0 cannot start a process under --with-ft ulfm (its MPI_Init fails: no coll component for iagree)"
        check_exit
        ;;
    esac
    DMESH_TEST_MPIEXEC_FLAGS="--with-ft ulfm"
    export DMESH_TEST_MPIEXEC_FLAGS
}

# check_exit: end the test with the outcome of its checks.
check_exit() {
    exit "$check_failed"
}
