/* SPDX-License-Identifier: BSD-3-Clause */
/* The public functions that raise their failures on an MPI error handler
 * (raise.h), as one list: X(name) for each. The library's own code calls
 * their implementations, <name>_impl (api_impl.h), which never raise; the
 * entry points of a program (api.c, api_layout.c) call an implementation,
 * then raise.
 * The functions of DMESH_API_PLAIN_NAMES report and never raise
 * (dmesh_error_class is called from error handlers): their entry points
 * only call the implementation. */
#ifndef DMESH_API_NAMES_H
#define DMESH_API_NAMES_H

#define DMESH_API_MESH_NAMES(X)                                                                    \
    X(dmesh_init)                                                                                  \
    X(dmesh_init_hybrid)                                                                           \
    X(dmesh_create)                                                                                \
    X(dmesh_from_comms)                                                                            \
    X(dmesh_free)                                                                                  \
    X(dmesh_abort)                                                                                 \
    X(dmesh_slice)                                                                                 \
    X(dmesh_flatten)                                                                               \
    X(dmesh_unflatten)                                                                             \
    X(dmesh_concatenate)                                                                           \
    X(dmesh_get_ndims)                                                                             \
    X(dmesh_get_shape)                                                                             \
    X(dmesh_get_size)                                                                              \
    X(dmesh_get_dim_name)                                                                          \
    X(dmesh_get_dim_index)                                                                         \
    X(dmesh_get_device_type)                                                                       \
    X(dmesh_get_coordinate)                                                                        \
    X(dmesh_get_local_rank)                                                                        \
    X(dmesh_get_group_ranks)                                                                       \
    X(dmesh_get_ranks)                                                                             \
    X(dmesh_get_comm)                                                                              \
    X(dmesh_get_device)                                                                            \
    X(dmesh_equal)                                                                                 \
    X(dmesh_to_string)                                                                             \
    X(dmesh_get_cache_info)                                                                        \
    X(dmesh_push)                                                                                  \
    X(dmesh_pop)                                                                                   \
    X(dmesh_get_current)                                                                           \
    X(dmesh_get_rank_of)                                                                           \
    X(dmesh_get_coordinate_of)                                                                     \
    X(dmesh_shift)                                                                                 \
    X(dmesh_get_all_groups)                                                                        \
    X(dmesh_get_dim_locality)                                                                      \
    X(dmesh_get_cart_comm)                                                                         \
    X(dmesh_get_sub_comm)                                                                          \
    X(dmesh_serialize)                                                                             \
    X(dmesh_deserialize)                                                                           \
    X(dmesh_get_version)                                                                           \
    X(dmesh_get_build_info)                                                                        \
    X(dmesh_revoke)                                                                                \
    X(dmesh_get_failed)                                                                            \
    X(dmesh_shrink)                                                                                \
    X(dmesh_respawn)                                                                               \
    X(dmesh_join)                                                                                  \
    X(dmesh_grow)                                                                                  \
    X(dmesh_copies_open)                                                                           \
    X(dmesh_copies_add)                                                                            \
    X(dmesh_copies_add_sized)                                                                      \
    X(dmesh_copies_store)                                                                          \
    X(dmesh_copies_restore)                                                                        \
    X(dmesh_copies_get_partners)                                                                   \
    X(dmesh_copies_get_survival)                                                                   \
    X(dmesh_copies_free)                                                                           \
    X(dmesh_start)                                                                                 \
    X(dmesh_agree_step)                                                                            \
    X(dmesh_repair)                                                                                \
    X(dmesh_get_dim_size)                                                                          \
    X(dmesh_get_dim_size_by_name)                                                                  \
    X(dmesh_get_local_rank_by_name)                                                                \
    X(dmesh_get_group_ranks_by_name)                                                               \
    X(dmesh_get_comm_by_name)                                                                      \
    X(dmesh_shift_by_name)                                                                         \
    X(dmesh_get_all_groups_by_name)                                                                \
    X(dmesh_get_dim_locality_by_name)                                                              \
    X(dmesh_unflatten_by_name)                                                                     \
    X(dmesh_shrink_by_name)                                                                        \
    X(dmesh_grow_by_name)

#define DMESH_API_LAYOUT_NAMES(X)                                                                  \
    X(dmesh_axis_canonical)                                                                        \
    X(dmesh_axis_numel)                                                                            \
    X(dmesh_axis_cosize)                                                                           \
    X(dmesh_axis_index)                                                                            \
    X(dmesh_axis_enumerate)                                                                        \
    X(dmesh_axis_complement)                                                                       \
    X(dmesh_axis_compose)                                                                          \
    X(dmesh_axis_compose_modes)                                                                    \
    X(dmesh_axis_is_orthogonal)                                                                    \
    X(dmesh_axis_is_sorted)                                                                        \
    X(dmesh_axis_decompose)                                                                        \
    X(dmesh_axis_prepare)                                                                          \
    X(dmesh_prepared_axis_decompose)                                                               \
    X(dmesh_axis_groups)                                                                           \
    X(dmesh_axis_group_of)                                                                         \
    X(dmesh_axis_to_string)                                                                        \
    X(dmesh_axis_parse)                                                                            \
    X(dmesh_layout_row_major)                                                                      \
    X(dmesh_layout_concat)                                                                         \
    X(dmesh_layout_splice)

#define DMESH_API_PLAIN_NAMES(X)                                                                   \
    X(dmesh_error_string)                                                                          \
    X(dmesh_last_error)                                                                            \
    X(dmesh_error_class)                                                                           \
    X(dmesh_axis_equal)

/* The implementation of name: name_impl, of name's type (defined in the
 * file of its object, e.g. dmesh_init_impl in mesh_root.c; its details
 * name the public call). */
#define DMESH_API_DECLARE_IMPL(name) extern __typeof__(name) name##_impl;

/* A public name that the library's own code may not use (api_impl.h). */
#define DMESH_API_STR_(x) #x
#define DMESH_API_POISON(name) _Pragma(DMESH_API_STR_(GCC poison name))

#endif /* DMESH_API_NAMES_H */
