/* SPDX-License-Identifier: BSD-3-Clause */
/* The scheme table (copies_scheme.h): one line per scheme of copies. */
#include "config.h"

#include "copies_scheme.h"

const dmesh_copies_scheme_t *const dmesh_copies_schemes[DMESH_COPIES_NSCHEMES] = {
    &dmesh_copies_partner,
    &dmesh_copies_xor,
};

int dmesh_copies_scheme_code(const dmesh_copies_scheme_t *s)
{
    for (int i = 0; i < DMESH_COPIES_NSCHEMES; i++)
        if (dmesh_copies_schemes[i] == s)
            return i;
    return -1;
}
