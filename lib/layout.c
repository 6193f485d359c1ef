/* Placeholder: the layout algebra is being written. */
#include "config.h"
#include "dmesh_layout.h"
#include "error.h"
int dmesh_axis_parse(const char *text, dmesh_axis_t *a) { (void)text; (void)a; return DMESH_ERR_INTERNAL; }
