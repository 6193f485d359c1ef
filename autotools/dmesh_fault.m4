# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_FAULT_INJECTION: --enable-fault-injection compiles the
# test-only fault hooks (lib/fault.c, DMESH_FAULT) into the library and the
# fault-injection suite into make check. Never on by default.
AC_DEFUN([DMESH_CHECK_FAULT_INJECTION], [
AC_ARG_ENABLE([fault-injection],
    [AS_HELP_STRING([--enable-fault-injection],
        [compile test-only fault injection hooks (DMESH_FAULT) and their tests; not for production])],
    [], [enable_fault_injection=no])
AS_IF([test "x$enable_fault_injection" = xyes],
    [AC_DEFINE([DMESH_FAULT_INJECTION], [1], [Define to compile the test-only fault injection hooks])])
AM_CONDITIONAL([DMESH_FAULT_INJECTION], [test "x$enable_fault_injection" = xyes])
])
