/* SPDX-License-Identifier: BSD-3-Clause */
/* Preloaded by the ASan + UBSan stage of .ci/run: dlclose does nothing, so
 * that the MPI library's plugins stay mapped until LeakSanitizer runs at exit
 * and their leaks can be matched by name (test/asan-mpi.supp) instead of
 * showing as "<unknown module>". */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
