/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * \file dmesh.h
 * \brief dmesh: n-dimensional device meshes over MPI communicators.
 *
 * This header is the public contract of the library. Every function returns
 * DMESH_SUCCESS (0) or one of the error classes below, after raising a
 * failure on the error handler of the communicator the call concerns, as
 * MPI does (see "Errors"); outputs come last: output handles are their
 * nulls after a failure, other outputs are written only on success.
 */
#ifndef DMESH_H
#define DMESH_H

#include <stddef.h>

#include "dmesh_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Marks a symbol as part of the library's exported interface. */
#ifndef DMESH_EXPORT
#if defined(__GNUC__) && __GNUC__ >= 4
#define DMESH_EXPORT __attribute__((visibility("default")))
#else
#define DMESH_EXPORT
#endif
#endif

/** \brief Opaque handle of a device mesh. Free it with dmesh_free(). */
typedef struct dmesh_s *dmesh_t;

/** \brief The null mesh handle; dmesh_free() sets handles to it. */
#define DMESH_NULL ((dmesh_t)0)
/** \brief Most dimensions a mesh can have. */
#define DMESH_MAX_DIMS 16
/** \brief Longest dimension name, in bytes, including the terminating NUL. */
#define DMESH_MAX_NAME 64

/**
 * \brief Error classes returned by every dmesh function.
 *
 * dmesh_error_string() names a class; dmesh_last_error() gives the detail of
 * the last failure on the calling thread.
 */
enum dmesh_error {
    DMESH_SUCCESS = 0, /**< no error */
    DMESH_ERR_ARG =
        1, /**< NULL where a value is needed, value out of range, bad device type or info value */
    DMESH_ERR_SIZE = 2, /**< shape too large for the communicator, int overflow, size mismatch */
    DMESH_ERR_NAME = 3, /**< duplicate, empty, too long or unknown dimension name */
    DMESH_ERR_LAYOUT =
        4, /**< layout not sorted or not orthogonal, different universes, bad rank map */
    DMESH_ERR_MISMATCH = 5,   /**< ranks called a collective with different arguments */
    DMESH_ERR_NOT_MEMBER = 6, /**< rank-specific query on a mesh the calling rank is not part of */
    DMESH_ERR_NO_DEVICE = 7,  /**< the device type needs a device this rank cannot get */
    DMESH_ERR_BACKEND = 8,    /**< backend not built in or not usable with the device type */
    DMESH_ERR_MPI = 9,        /**< an MPI call failed */
    DMESH_ERR_NCCL = 10,      /**< an NCCL call failed */
    DMESH_ERR_CUDA = 11,      /**< a CUDA runtime call failed */
    DMESH_ERR_HWLOC = 12,     /**< an hwloc call failed */
    DMESH_ERR_NOMEM = 13,     /**< memory allocation failed */
    DMESH_ERR_INTERNAL = 14,  /**< a broken internal invariant: a bug in dmesh */
    DMESH_ERR_TIMEOUT = 15,   /**< a bounded wait (dmesh_timeout) ran out, on every rank */
    DMESH_ERR_PROC_FAILED = 16, /**< a process of the universe failed, or it was revoked */
    DMESH_ERR_UNSUPPORTED = 17, /**< the MPI or its launch offers no fault tolerance */
    DMESH_ERR_SPAWN = 18,       /**< the MPI or its launcher refused to start processes */
    DMESH_ERR_DATA_LOST = 19,   /**< a process and every holder of its copy failed together */
    DMESH_ERR_LASTCODE = 20     /**< one past the last error class */
};

#ifdef __cplusplus
}
#endif
#endif /* DMESH_H */

/* The rest needs mpi.h. dmesh_layout.h includes this header for the part
 * above only (DMESH_BASE_ONLY_), so that the layout algebra compiles with a
 * plain C compiler; a later #include <dmesh.h> then brings in the rest. */
#if !defined(DMESH_BASE_ONLY_) && !defined(DMESH_H_MPI)
#define DMESH_H_MPI
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/** \name Creation and destruction
 *
 * The creation calls are collective over \p comm: every rank of \p comm must
 * call them with the same arguments. Each creation call starts a new
 * *universe* (the shared state of a root mesh and of every mesh derived from
 * it). They need MPI to be initialised, at any thread level; calls on
 * different communicators may run concurrently from different threads only
 * at MPI_THREAD_MULTIPLE, and not under fault tolerance with Open MPI 5.0.7,
 * whose MPIX_Comm_agree returns wrong outcomes when threads agree at once
 * (every collective call of dmesh agrees; the user guide's threads section).
 *
 * Recognised MPI_Info keys (MPI_INFO_NULL for none): `dmesh_backend`,
 * `dmesh_backend.<dim>`, `nccl_*` (and `nccl_*.<dim>`), `nccl_scalable_roots`,
 * `dmesh_check`, `dmesh_comm_create`, `dmesh_device`, `dmesh_bind`,
 * `dmesh_timeout`, `dmesh_nccl_init`, `dmesh_nccl_create`, `dmesh_strict`,
 * `dmesh_order` (dmesh_init: `rank`, or `node` to list the ranks by node),
 * `dmesh_node` (how nodes are found: `auto`, the MPI's
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) checked against host identity,
 * the host where the split is finer; `shared`; `host`);
 * environment variables `DMESH_CHECK`, `DMESH_COMM_CREATE`,
 * `DMESH_NCCL_CREATE`, `DMESH_DEVICE`, `DMESH_TIMEOUT`, `DMESH_STRICT`,
 * `DMESH_NODE` give
 * their defaults, `DMESH_DEBUG=1` traces on stderr, and
 * `DMESH_LAUNCH_CHECK=false` turns off the check that MPI_COMM_WORLD is not
 * a single rank of a larger launch (DMESH_ERR_MPI at the first creation
 * call). Keys without the
 * `dmesh_` prefix are ignored. An unknown `dmesh_*` key or `DMESH_*`
 * variable is listed on stderr under `DMESH_DEBUG`; with `dmesh_strict=true`
 * (or `DMESH_STRICT=true`) it is DMESH_ERR_ARG, on every rank, and
 * dmesh_last_error() names it.
 * @{ */

/**
 * \brief Create a mesh of shape \p shape over the first product(shape) ranks
 *        of \p comm, in row-major order.
 *
 * A shape entry 0 lets dmesh choose that size, as MPI_Dims_create(size of
 * \p comm, \p ndims, shape) chooses it (dmesh calls it): the zeros are
 * filled so that the product of the shape is the size of \p comm, the
 * given entries are kept, and the chosen ones are as close to each other
 * as possible, in non-increasing order. With 8 ranks, (0, 0) is (4, 2),
 * (0, 0, 0) is (2, 2, 2), (0, 2, 0) is (2, 2, 2) and (1, 0, 0) is (1, 4, 2).
 * The choice is the same on every rank; \p shape itself is not written,
 * dmesh_get_shape() and dmesh_to_string() report the chosen sizes. The
 * product of the given entries must divide the size of \p comm.
 * \param[in] comm communicator whose ranks form the mesh (not freed; may be
 *            freed by the caller while meshes built on it live on)
 * \param[in] device_type "cpu" or "cuda" (no index: "cuda:0" is DMESH_ERR_ARG)
 * \param[in] ndims number of dimensions, 1 to DMESH_MAX_DIMS
 * \param[in] shape size of each dimension (each >= 1, or 0: chosen by
 *            dmesh), outermost first; product(shape) <= size of \p comm
 * \param[in] dim_names ndims distinct names, or NULL for an unnamed mesh
 * \param[in] info options, or MPI_INFO_NULL
 * \param[out] mesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS or an error class: DMESH_ERR_ARG for a negative
 *         entry; DMESH_ERR_SIZE when product(shape) exceeds the size of
 *         \p comm, or when the shape has zeros and the product of its
 *         other entries does not divide that size (the detail names both:
 *         "shape (3, 0) cannot fill a communicator of 8 ranks: 8 is not a
 *         multiple of 3"); DMESH_ERR_MISMATCH when the ranks passed
 *         different shapes, comparing them as given (a rank passing 0 where
 *         another passes the size that 0 stands for is a mismatch)
 * \note Collective over \p comm. Ranks beyond product(shape) get a valid
 *       handle for which they are not members.
 */
DMESH_EXPORT int dmesh_init(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                            const char *const dim_names[], MPI_Info info, dmesh_t *mesh);

/**
 * \brief Create a mesh whose dimensions each have an in-node factor and an
 *        across-node factor (JAX's create_hybrid_device_mesh): dimension d
 *        has size in_node[d] * across[d], the in-node factor inner.
 *
 * The ranks are listed by (node, local rank), nodes by their lowest rank
 * (a node: the MPI's MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) split
 * checked against host identity, option `dmesh_node`), as with
 * `dmesh_order=node`; index node * P + local rank, where P is the product
 * of \p in_node. Dimension d then varies across[d] over nodes (stride: the
 * product of across[d+1..] times P) and in_node[d] inside a node (stride:
 * the product of in_node[d+1..]), so that a dimension whose across factor
 * is 1 stays inside every node, whatever the placement of the ranks.
 * \param[in] comm communicator; every rank of it is in the mesh
 * \param[in] device_type "cpu" or "cuda"
 * \param[in] ndims number of dimensions, 1 to DMESH_MAX_DIMS
 * Entries 0 are chosen as MPI_Dims_create chooses them (see dmesh_init()),
 * in one of the two lists: the zeros of \p in_node so that its product is
 * the number of ranks per node, size of \p comm / product(across); or the
 * zeros of \p across so that its product is the number of nodes, size of
 * \p comm / product(in_node). Zeros in both lists are DMESH_ERR_ARG: the
 * nodes are found only after the ranks agreed on the sizes. The arrays are
 * not written; dmesh_get_shape() reports the products in_node[d] * across[d].
 * \param[in] in_node ndims factors >= 1 (or 0: chosen) whose product is the
 *            number of ranks on every node
 * \param[in] across ndims factors >= 1 (or 0: chosen) whose product is the
 *            number of nodes
 * \param[in] dim_names ndims distinct names, or NULL for an unnamed mesh
 * \param[in] info options, or MPI_INFO_NULL
 * \param[out] mesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS; DMESH_ERR_SIZE when the product of all factors is
 *         not the size of \p comm, or when the nodes do not each hold the
 *         product of \p in_node ranks or are not the product of \p across
 *         in number (the detail gives the ranks per node), or when the
 *         given factors of both lists, multiplied, do not divide the size of
 *         \p comm; DMESH_ERR_ARG for NULL or negative factors, or zeros in
 *         both lists; otherwise as dmesh_init()
 * \note Collective over \p comm, like dmesh_init(); it also finds the nodes
 *       (once per communicator: the node split and its check against host
 *       identity), gathers them (one MPI_Allgather of an int) and keeps a
 *       rank map of the mesh's size.
 */
DMESH_EXPORT int dmesh_init_hybrid(MPI_Comm comm, const char *device_type, int ndims,
                                   const int in_node[], const int across[],
                                   const char *const dim_names[], MPI_Info info, dmesh_t *mesh);

/**
 * \brief Create a mesh of shape \p shape whose row-major elements are the
 *        ranks \p ranks of \p comm.
 * \param[in] comm communicator the ranks refer to
 * \param[in] device_type "cpu" or "cuda"
 * \param[in] ndims number of dimensions, 1 to DMESH_MAX_DIMS
 * \param[in] shape size of each dimension (each >= 1, or 0: chosen as by
 *            dmesh_init(), so that the product of the shape is the size of
 *            \p comm; the product of the given entries must divide it)
 * \param[in] ranks product(shape) distinct ranks of \p comm, row-major: with
 *            an entry 0 in \p shape, every rank of \p comm, row-major in
 *            the chosen shape (MPI_Dims_create on the same input gives it)
 * \param[in] dim_names ndims distinct names, or NULL
 * \param[in] info options, or MPI_INFO_NULL
 * \param[out] mesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS or an error class (DMESH_ERR_LAYOUT for duplicate or
 *         out-of-range ranks; for \p shape as dmesh_init())
 * \note Collective over \p comm. The rank list is copied.
 */
DMESH_EXPORT int dmesh_create(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                              const int ranks[], const char *const dim_names[], MPI_Info info,
                              dmesh_t *mesh);

/**
 * \brief Create a mesh from communicators that already exist, one per
 *        dimension (PyTorch's DeviceMesh.from_group).
 * \param[in] comm communicator the ranks refer to
 * \param[in] device_type "cpu" or "cuda"
 * \param[in] ndims number of dimensions
 * \param[in] dim_comms on each rank, its communicator along each dimension
 *            (MPI_COMM_NULL on ranks outside the mesh); dmesh keeps its own
 *            duplicates, the caller still owns these
 * \param[in] shape size of each dimension
 * \param[in] ranks row-major rank list as for dmesh_create(); NULL allowed
 *            when ndims == 1, the mesh then being the group of dim_comms[0]
 * \param[in] dim_names ndims distinct names, or NULL
 * \param[out] mesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_LAYOUT when a communicator's members or
 *         their order differ from the mesh's groups, or another error class
 * \note Collective over \p comm.
 */
DMESH_EXPORT int dmesh_from_comms(MPI_Comm comm, const char *device_type, int ndims,
                                  const MPI_Comm dim_comms[], const int shape[], const int ranks[],
                                  const char *const dim_names[], dmesh_t *mesh);

/**
 * \brief Free a mesh handle and set it to DMESH_NULL.
 * \param[in,out] mesh handle to free; a DMESH_NULL handle is accepted
 * \return DMESH_SUCCESS, or DMESH_ERR_ARG if \p mesh is NULL or not a live
 *         handle (freed or invalid mesh handle)
 * \note Local for every mesh but the last of its universe. Freeing the last
 *       one frees the communicators of the universe that the caller holds
 *       (MPI_Comm_free, and the NCCL ones' destruction), which is collective
 *       over the members of each: every member of the mesh frees its last
 *       mesh of the universe, in the same order with respect to other
 *       collective calls on those communicators.
 *       **A process that holds no communicator of the universe frees
 *       alone**, whenever it likes: a process outside the mesh (is_member 0
 *       from dmesh_get_coordinate(); dmesh_get_comm() and
 *       dmesh_get_sub_comm() give it MPI_COMM_NULL) holds none, whatever was
 *       derived from the mesh, so its dmesh_free() is local and may come
 *       before or after the members' (MPI_Cart_create's excluded processes
 *       likewise just go their way). It must still take part in every
 *       collective call that the members make on the universe
 *       (dmesh_flatten(), dmesh_unflatten(), dmesh_get_sub_comm(),
 *       dmesh_get_cart_comm(), ...: collective over the root communicator,
 *       non-members included) before it frees its last mesh.
 *       A mesh still on the current-mesh stack must not be freed.
 *       Copies of a freed handle stay invalid: every call given one returns
 *       DMESH_ERR_ARG ("freed or invalid mesh handle"), as for a value that
 *       was never a handle, also after new meshes are made. dmesh_free()
 *       fails only on such a handle (or one that another thread freed
 *       first: of threads freeing copies of one handle, one frees it), so
 *       it raises on MPI_COMM_SELF's error handler. No other thread may
 *       use the mesh while it is freed (a query that began before the
 *       free reads freed memory), as for any MPI object.
 */
DMESH_EXPORT int dmesh_free(dmesh_t *mesh);

/**
 * \brief Abort every NCCL communicator of the universe of \p mesh (inside one
 *        ncclGroupStart/End) and free its MPI communicators, without waiting
 *        for the other ranks; for error paths where a collective may hang.
 * \param[in] mesh any mesh of the universe
 * \return DMESH_SUCCESS, or the first error met (the teardown goes on)
 * \note Local. Afterwards every collective call on the universe and
 *       dmesh_get_nccl_comm() return DMESH_ERR_ARG ("universe aborted"),
 *       local queries still answer, dmesh_get_comm() returns MPI_COMM_NULL,
 *       and dmesh_free() works.
 */
DMESH_EXPORT int dmesh_abort(dmesh_t mesh);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Derived meshes
 * Derived meshes share the universe of their parent and are freed
 * independently of it.
 * @{ */

/**
 * \brief Select dimensions of a mesh by name (PyTorch's `mesh["dp", "tp"]`).
 * \param[in] mesh a named mesh
 * \param[in] n number of names
 * \param[in] dim_names names of the mesh, in outer-to-inner order; on a root
 *            mesh also names registered by dmesh_flatten()
 * \param[out] submesh the sliced mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for an unknown name or an unnamed mesh,
 *         DMESH_ERR_LAYOUT when the names are not in the mesh's order (outer
 *         to inner: descending stride) or overlap, and for a name that dmesh_flatten() registered
 * from a mesh whose dimensions were in another order than the root's (a dmesh_concatenate() of
 * transposed slices): its ranks are not in the root's order, so it is no slice of the root (the
 * mesh that dmesh_flatten() returned is the 1-D mesh of that name) \note Local: creates no
 * communicator. Thread-safe with other queries.
 */
DMESH_EXPORT int dmesh_slice(dmesh_t mesh, int n, const char *const dim_names[], dmesh_t *submesh);

/**
 * \brief Merge every dimension of a mesh into one, and register the result's
 *        name on the root mesh.
 * \param[in] mesh mesh to flatten (usually a slice of the root)
 * \param[in] name name of the flat dimension; NULL joins the names with "_"
 * \param[in] info options for the new communicator, or MPI_INFO_NULL
 * \param[out] flat the one-dimensional mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_NAME when \p name is a root dimension or
 *         was registered for another layout, or another error class
 * \note Collective over the root communicator. A name registered before with
 *       the same layout returns that mesh again without new communicators.
 */
DMESH_EXPORT int dmesh_flatten(dmesh_t mesh, const char *name, MPI_Info info, dmesh_t *flat);

/**
 * \brief Split one dimension into several (PyTorch's `_unflatten`).
 * \param[in] mesh mesh to transform
 * \param[in] dim index of the dimension to split
 * \param[in] n number of new dimensions
 * \param[in] sizes their sizes, whose product is the size of \p dim
 * \param[in] dim_names their names (required when \p mesh is named)
 * \param[in] info options for the new communicators, or MPI_INFO_NULL
 * \param[out] out the new mesh, with ndims - 1 + n dimensions (DMESH_NULL when
 *            the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_SIZE on a size mismatch, or another class
 * \note Collective over the root communicator. The new names are not
 *       registered on the root mesh. Unflattening the same dimension into
 *       the same sizes again reuses the cached communicators.
 */
DMESH_EXPORT int dmesh_unflatten(dmesh_t mesh, int dim, int n, const int sizes[],
                                 const char *const dim_names[], MPI_Info info, dmesh_t *out);

/**
 * \brief Join the dimensions of several meshes of one universe.
 * \param[in] n number of meshes, >= 1
 * \param[in] meshes meshes of one universe with disjoint, orthogonal dimensions
 * \param[out] out mesh with every dimension of every input, in order
 *            (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_LAYOUT for overlapping dimensions or
 *         different universes, DMESH_ERR_NAME for repeated names
 * \note Local: reuses the inputs' communicators.
 */
DMESH_EXPORT int dmesh_concatenate(int n, const dmesh_t meshes[], dmesh_t *out);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Queries
 * Local calls: they never communicate and may run concurrently from several
 * threads on the same mesh (any MPI thread level).
 * @{ */

/** \brief Number of dimensions. \param[in] mesh the mesh \param[out] ndims the count
 *  \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_get_ndims(dmesh_t mesh, int *ndims);

/**
 * \brief Size of each dimension.
 * \param[in] mesh the mesh
 * \param[in] maxdims capacity of \p shape; must be >= the mesh's ndims
 * \param[out] shape sizes, outermost first
 * \return DMESH_SUCCESS, DMESH_ERR_ARG if \p maxdims is too small
 */
DMESH_EXPORT int dmesh_get_shape(dmesh_t mesh, int maxdims, int shape[]);

/** \brief Number of ranks in one copy of the mesh (the product of its shape).
 *  \param[in] mesh the mesh \param[out] size the product \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_get_size(dmesh_t mesh, int *size);

/**
 * \brief Name of a dimension.
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[out] name the name, owned by the mesh and valid while it lives;
 *             NULL for an unnamed mesh
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_get_dim_name(dmesh_t mesh, int dim, const char **name);

/** \brief Index of the dimension called \p name.
 *  \param[in] mesh the mesh \param[in] name a dimension name \param[out] dim its index
 *  \return DMESH_SUCCESS, DMESH_ERR_NAME if no dimension has that name */
DMESH_EXPORT int dmesh_get_dim_index(dmesh_t mesh, const char *name, int *dim);

/**
 * \brief Size of one dimension (PyTorch's `mesh.size(dim)`): the number of
 *        ranks in each group along \p dim.
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[out] size the size of \p dim
 * \return DMESH_SUCCESS or DMESH_ERR_ARG (a bad handle, \p dim or NULL \p size)
 * \note Local; any thread, at any MPI thread level. dmesh_get_dim_size_by_name()
 *       takes the dimension's name.
 */
DMESH_EXPORT int dmesh_get_dim_size(dmesh_t mesh, int dim, int *size);

/** \brief Device type of the mesh ("cpu" or "cuda").
 *  \param[in] mesh the mesh \param[out] device_type static string
 *  \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_get_device_type(dmesh_t mesh, const char **device_type);

/**
 * \brief Coordinate of the calling rank in the mesh.
 * \param[in] mesh the mesh
 * \param[in] maxdims capacity of \p coords (>= ndims, on every rank: the
 *            check does not depend on \p rank being a member)
 * \param[out] coords the coordinate; MPI_UNDEFINED in each of the ndims
 *             entries when the caller is outside the mesh (a mesh smaller
 *             than its communicator)
 * \param[out] is_member 1 if the calling rank is part of the mesh, else 0
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_get_coordinate(dmesh_t mesh, int maxdims, int coords[], int *is_member);

/** \brief Rank of the caller in the communicator of \p dim (its coordinate on dim).
 *  \param[in] mesh the mesh \param[in] dim dimension index \param[out] rank the local rank
 *  \return DMESH_SUCCESS, DMESH_ERR_NOT_MEMBER for a non-member */
DMESH_EXPORT int dmesh_get_local_rank(dmesh_t mesh, int dim, int *rank);

/**
 * \brief Members of the caller's group along \p dim, as ranks of the root
 *        communicator, in local-rank order.
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[in] maxranks capacity of \p ranks (>= the size of \p dim)
 * \param[out] ranks the members
 * \param[out] nranks number written
 * \return DMESH_SUCCESS, DMESH_ERR_NOT_MEMBER for a non-member
 */
DMESH_EXPORT int dmesh_get_group_ranks(dmesh_t mesh, int dim, int maxranks, int ranks[],
                                       int *nranks);

/**
 * \brief The "mesh tensor": the ranks of the copy of the mesh that contains
 *        the caller (or of the only copy), row-major.
 * \param[in] mesh the mesh
 * \param[in] maxranks capacity of \p ranks (>= dmesh_get_size())
 * \param[out] ranks ranks of the root communicator
 * \param[out] nranks number written
 * \return DMESH_SUCCESS, DMESH_ERR_NOT_MEMBER when the caller is in no copy
 *         and there are several
 */
DMESH_EXPORT int dmesh_get_ranks(dmesh_t mesh, int maxranks, int ranks[], int *nranks);

/**
 * \brief Communicator of the caller's group along \p dim.
 *
 * The communicator belongs to the mesh's universe and goes with its last
 * mesh (dmesh_free()): never free it; to keep it beyond the mesh, keep a
 * copy of your own: MPI_Comm_dup(comm, &mine).
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[out] comm borrowed communicator (do not free), valid while any mesh
 *             of the universe lives; MPI_COMM_NULL for a non-member and when
 *             the call fails. Its rank order is the local rank along \p dim.
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_get_comm(dmesh_t mesh, int dim, MPI_Comm *comm);

/** \brief CUDA device ordinal bound to the caller, -1 for a "cpu" mesh.
 *  \param[in] mesh the mesh \param[out] device the ordinal \return DMESH_SUCCESS or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_get_device(dmesh_t mesh, int *device);

/**
 * \brief Value equality, as PyTorch's `==`: same device type, rank map,
 *        layout and names.
 * \param[in] a first mesh \param[in] b second mesh
 * \param[out] equal 1 if equal, else 0
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_equal(dmesh_t a, dmesh_t b, int *equal);

/**
 * \brief Human-readable description of a mesh, with snprintf rules.
 *
 * "DeviceMesh(cpu, (dp=2, tp=4), layout (2:4, 4:1), mesh [[0, 1, 2, 3], [4,
 * 5, 6, 7]])"; once the mesh's universe knows its nodes (dmesh_order=node,
 * dmesh_init_hybrid(), dmesh_get_dim_locality()) and this rank's node is its
 * host rather than the MPI's shared-memory split (option `dmesh_node`), the
 * text ends with ", nodes by host identity)".
 * \param[in] mesh the mesh
 * \param[out] buf buffer (may be NULL when \p len is 0)
 * \param[in] len capacity of \p buf
 * \param[out] needed length of the full text without the NUL (may be NULL)
 * \return DMESH_SUCCESS (also when truncated) or DMESH_ERR_ARG
 */
DMESH_EXPORT int dmesh_to_string(dmesh_t mesh, char *buf, size_t len, size_t *needed);

/** \brief Figures of a universe's communicator cache. */
typedef struct {
    int comms_mpi;  /**< MPI communicators created (or duplicated) by the universe */
    int comms_nccl; /**< NCCL communicators created by the universe */
    long lookups;   /**< cache lookups */
    long hits;      /**< lookups that found an existing communicator */
    /* NCCL creation on this rank (doc/gpu.md, "Creating NCCL communicators") */
    long nccl_bootstraps;     /**< NCCL communicators bootstrapped from one broadcast unique id */
    long nccl_splits;         /**< NCCL communicators made by ncclCommSplit */
    long nccl_scalable_inits; /**< NCCL communicators made by ncclCommInitRankScalable */
} dmesh_cache_info_t;

/** \brief Cache figures of the universe of \p mesh.
 *  \param[in] mesh the mesh \param[out] info the figures \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_get_cache_info(dmesh_t mesh, dmesh_cache_info_t *info);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Current-mesh stack
 * One stack per thread (PyTorch's `with mesh:`), at most 64 deep. The stack
 * holds borrowed handles: pop a mesh before freeing it.
 * @{ */

/** \brief Push \p mesh on the calling thread's stack.
 *  \param[in] mesh a mesh \return DMESH_SUCCESS, DMESH_ERR_ARG if NULL or the stack is full */
DMESH_EXPORT int dmesh_push(dmesh_t mesh);

/** \brief Pop the top of the calling thread's stack.
 *  \param[out] mesh the popped mesh (may be NULL to discard it; DMESH_NULL when the
 *             call fails)
 *  \return DMESH_SUCCESS, DMESH_ERR_ARG if the stack is empty */
DMESH_EXPORT int dmesh_pop(dmesh_t *mesh);

/** \brief Top of the calling thread's stack, DMESH_NULL when empty.
 *  \param[out] mesh the current mesh (borrowed; DMESH_NULL when the call fails)
 *  \return DMESH_SUCCESS or DMESH_ERR_ARG */
DMESH_EXPORT int dmesh_get_current(dmesh_t *mesh);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Errors
 *
 * dmesh raises its errors the way MPI does. Each class is also an MPI error
 * class, with an MPI error code and the string of dmesh_error_string(),
 * registered with MPI (MPI_Add_error_class, MPI_Add_error_code,
 * MPI_Add_error_string) at the first failure that needs them. A failing
 * call passes that code to MPI_Comm_call_errhandler on:
 *   - the communicator passed to a creation call (dmesh_init,
 *     dmesh_init_hybrid, dmesh_create, dmesh_from_comms,
 *     dmesh_deserialize);
 *   - the communicator a mesh was made from, for a call on a mesh (as
 *     MPI_Cart_sub raises on its parent); after the program freed that
 *     communicator, its error handler as it was when the mesh was made;
 *   - MPI_COMM_SELF for a call tied to no communicator (a DMESH_NULL mesh,
 *     dmesh_pop, dmesh_get_current, dmesh_get_version,
 *     dmesh_get_build_info, the functions of dmesh_layout.h), and only
 *     while MPI is initialised: before MPI_Init (or without it, in the
 *     sessions model) and after MPI_Finalize the class is just returned.
 *
 * Collective calls raise after their ranks agreed on the outcome: every
 * rank raises the same class. The handler decides what follows:
 *
 *   - MPI_ERRORS_ARE_FATAL (MPI's default on MPI_COMM_WORLD) and
 *     MPI_ERRORS_ABORT: dmesh writes "dmesh: <call> failed on rank <r> of
 *     its communicator: <detail> [<class>]" to stderr, then the handler ends
 *     the job. An agreed outcome of a collective call is written once per
 *     job, by the lowest rank that failed (rank 0 for a mismatch); a call
 *     tied to no communicator names the MPI_COMM_WORLD rank ("failed on
 *     rank <r> of MPI_COMM_WORLD");
 *   - MPI_ERRORS_RETURN: the call returns its DMESH_ERR_* class;
 *   - a program's own handler: called once per failing call with the code
 *     (dmesh_error_class() maps it back to the class; MPI_Error_string gives
 *     dmesh's text); when it returns, the call returns its class.
 *
 * `DMESH_ERRORS=return` in the environment (read once) returns classes
 * without calling any handler: for codes that check every return and keep
 * MPI_COMM_WORLD fatal. `DMESH_ERRORS=comm` is the default described above.
 *
 * A call fails without raising where its thread may not call MPI: below
 * MPI_THREAD_MULTIPLE, a thread other than the main one (a local query
 * made there returns its class); and with an MPI library other than the
 * one dmesh was built for (the launch check's DMESH_ERR_MPI).
 *
 * Whatever the handler, a failing call sets its output handles to their
 * nulls (DMESH_NULL, MPI_COMM_NULL, a NULL ncclComm_t); its other outputs
 * are written only on success. dmesh_error_string(), dmesh_last_error()
 * and dmesh_error_class() never call a handler.
 * @{ */

/** \brief Static name and description of an error class ("unknown error" for others).
 *  \param[in] err an error class \return a static string; thread-safe */
DMESH_EXPORT const char *dmesh_error_string(int err);

/** \brief Detail of the last failure on the calling thread ("" if none).
 *  \return a thread-local string, valid until the thread's next failing call */
DMESH_EXPORT const char *dmesh_last_error(void);

/**
 * \brief The DMESH_ERR_* class of an MPI error code that dmesh raised.
 *
 * What a program's error handler receives is an MPI error code; this maps
 * it back, as MPI_Error_class does for MPI's own codes.
 * \param[in] errorcode an MPI error code
 * \param[out] errorclass its DMESH_ERR_* class
 * \return DMESH_SUCCESS, or DMESH_ERR_ARG for a code that dmesh did not
 *         raise (or a NULL \p errorclass)
 * \note Local; thread-safe; never calls an error handler (it is meant to be
 *       called from one).
 */
DMESH_EXPORT int dmesh_error_class(int errorcode, int *errorclass);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Simulation codes
 * The mesh as a whole, the way MPI's Cartesian topologies offer it: any
 * rank's coordinate, neighbours along a dimension, every group of a
 * dimension, a Cartesian communicator, and saving and restoring a mesh.
 * The queries are local (any MPI thread level, concurrently from several
 * threads); dmesh_get_cart_comm(), dmesh_get_sub_comm() and
 * dmesh_deserialize() are collective.
 * @{ */

/**
 * \brief Rank of the root communicator at a coordinate of the mesh, in the
 *        caller's copy of the mesh (or its only copy).
 * \param[in] mesh the mesh
 * \param[in] ndims number of coordinates: the mesh's ndims
 * \param[in] coords the coordinate, 0 <= coords[d] < shape[d]
 * \param[out] rank the rank of the communicator the root mesh was built on
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a wrong \p ndims or a coordinate
 *         out of range, DMESH_ERR_NOT_MEMBER when the mesh has several copies
 *         (a slice of a larger mesh) and the caller is in none
 * \note Local. The inverse of dmesh_get_coordinate_of() on the caller's copy.
 */
DMESH_EXPORT int dmesh_get_rank_of(dmesh_t mesh, int ndims, const int coords[], int *rank);

/**
 * \brief Coordinate of any rank in the copy of the mesh that contains it.
 * \param[in] mesh the mesh
 * \param[in] rank a rank of the root communicator
 * \param[in] maxdims capacity of \p coords (>= ndims)
 * \param[out] coords the coordinate, MPI_UNDEFINED in each of the ndims
 *             entries when \p rank is not a member; for the caller, what
 *             dmesh_get_coordinate() gives
 * \param[out] is_member 1 if \p rank is part of a copy of the mesh, else 0
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a rank outside the communicator
 *         or a too small \p maxdims
 * \note Local: O(atoms), like MPI_Cart_coords.
 */
DMESH_EXPORT int dmesh_get_coordinate_of(dmesh_t mesh, int rank, int maxdims, int coords[],
                                         int *is_member);

/**
 * \brief Neighbours of the caller along a dimension, as MPI_Cart_shift: the
 *        ranks, in the communicator of \p dim (dmesh_get_comm()), that the
 *        caller receives from (\p source, coordinate - \p disp) and sends to
 *        (\p dest, coordinate + \p disp).
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[in] disp displacement (any sign; 0 gives the caller itself)
 * \param[in] periodic nonzero: coordinates wrap around; zero: MPI_PROC_NULL
 *            past either end
 * \param[out] source rank to receive from, or MPI_PROC_NULL
 * \param[out] dest rank to send to, or MPI_PROC_NULL
 * \return DMESH_SUCCESS, DMESH_ERR_ARG, DMESH_ERR_NOT_MEMBER for a non-member
 * \note Local. The results feed MPI_Sendrecv on dmesh_get_comm(mesh, dim).
 */
DMESH_EXPORT int dmesh_shift(dmesh_t mesh, int dim, int disp, int periodic, int *source, int *dest);

/**
 * \brief Every group of a dimension (PyTorch's `_get_all_submeshes`), as
 *        ranks of the root communicator.
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[in] maxgroups rows of \p ranks (>= the number of groups); 0 with
 *            \p ranks NULL asks for \p ngroups and \p size only
 * \param[in] maxranks length of one row (>= the size of \p dim)
 * \param[out] ranks row-major maxgroups x maxranks array: member i of group
 *             g (its local rank i along \p dim) is ranks[g * maxranks + i]
 * \param[out] ngroups number of groups
 * \param[out] size ranks per group (the size of \p dim)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG when a capacity is too small,
 *         DMESH_ERR_NOT_MEMBER on a non-member of a mesh whose rank map is
 *         private to each group (dmesh_from_comms() without ranks)
 * \note Local: computed from the layout, no communication. The groups come
 *       in the order of their MPI_Comm_split colours; the caller's group is
 *       the one dmesh_get_group_ranks() gives.
 */
DMESH_EXPORT int dmesh_get_all_groups(dmesh_t mesh, int dim, int maxgroups, int maxranks,
                                      int ranks[], int *ngroups, int *size);

/** Where the groups of a dimension sit (dmesh_get_dim_locality()). */
enum {
    DMESH_LOCALITY_NODE = 1,   /**< every group inside one node (a dimension of size 1 too) */
    DMESH_LOCALITY_ACROSS = 2, /**< no group has two ranks on one node */
    DMESH_LOCALITY_MIXED = 3   /**< some group has ranks on several nodes and two on one */
};

/**
 * \brief Whether the groups of a dimension stay inside a node, spread one
 *        rank per node, or neither (a node: the ranks that
 *        MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts together, checked
 *        against host identity: option `dmesh_node`).
 * \param[in] mesh the mesh
 * \param[in] dim dimension index
 * \param[out] kind DMESH_LOCALITY_NODE, _ACROSS or _MIXED, the same on
 *             every rank (members of the mesh or not)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a NULL \p kind, a bad \p dim or a
 *         mesh of dmesh_from_comms() without ranks (its rank map is private
 *         to each group), DMESH_ERR_MPI / DMESH_ERR_NOMEM when finding the
 *         nodes fails
 * \note The nodes are known from the creation of meshes made with
 *       `dmesh_order=node` or by dmesh_init_hybrid(): the call is then local.
 *       Otherwise the first call on a universe finds them and is collective
 *       over the root communicator (finding the nodes, once per
 *       communicator, and one MPI_Allgather of an int; every rank must make
 *       it, in the same order with respect to other collective calls);
 *       later calls are local. O(mesh size) work.
 */
DMESH_EXPORT int dmesh_get_dim_locality(dmesh_t mesh, int dim, int *kind);

/**
 * \brief An MPI Cartesian communicator with the mesh's shape, for
 *        MPI_Neighbor_* collectives and MPI_Cart_* queries.
 *
 * The communicator belongs to the mesh's universe and goes with its last
 * mesh (dmesh_free()): never free it; to keep it beyond the mesh, keep a
 * copy of your own: MPI_Comm_dup(cart, &mine).
 * \param[in] mesh the mesh
 * \param[in] periods ndims flags: dimension d is periodic when periods[d] != 0
 * \param[in] reorder passed to MPI_Cart_create. With 0, the Cartesian
 *            coordinates of every process equal its mesh coordinates and its
 *            rank is the row-major index of that coordinate. With nonzero MPI
 *            may renumber: read coordinates and neighbours from the
 *            communicator itself (MPI_Cart_coords, MPI_Cart_shift).
 * \param[out] cart borrowed communicator over the caller's copy of the mesh
 *             (do not free), valid while any mesh of the universe lives;
 *             MPI_COMM_NULL for a non-member and when the call fails
 * \return DMESH_SUCCESS, DMESH_ERR_ARG, DMESH_ERR_MISMATCH when ranks passed
 *         different arguments, DMESH_ERR_MPI
 * \note Collective over the root communicator (as dmesh_flatten()). Cached
 *       in the universe by (layout, periods, reorder): a second call with the
 *       same arguments, on this mesh or an equal one, creates nothing.
 */
DMESH_EXPORT int dmesh_get_cart_comm(dmesh_t mesh, const int periods[], int reorder,
                                     MPI_Comm *cart);

/**
 * \brief The communicator of the caller's group over some dimensions of the
 *        mesh: MPI_Cart_sub's job (keep two of three dimensions, say, for a
 *        per-plane communicator) in one call.
 *
 * The communicator belongs to the mesh's universe and goes with its last
 * mesh (dmesh_free()): never free it; to keep it beyond the mesh, keep a
 * copy of your own: MPI_Comm_dup(newcomm, &mine).
 * Unlike MPI_Cart_sub's result, it does not outlive dmesh_free() of the
 * universe's last mesh.
 * \param[in] mesh the mesh
 * \param[in] remain_dims ndims flags: dimension d is kept when
 *            remain_dims[d] != 0
 * \param[out] newcomm borrowed communicator (do not free), valid while any
 *             mesh of the universe lives: the members of the mesh whose
 *             coordinates differ from the caller's only along the kept
 *             dimensions, ranked in row-major order of their kept
 *             coordinates (MPI_Cart_sub's order). Every flag 0: a
 *             communicator of the caller alone; every flag 1: the whole
 *             mesh (the caller's copy of it), ranked as dmesh_get_ranks().
 *             MPI_COMM_NULL for a process outside the mesh (a mesh smaller
 *             than its communicator) and when the call fails
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a NULL argument,
 *         DMESH_ERR_MISMATCH when ranks passed different flags, DMESH_ERR_MPI
 * \note Collective over the root communicator (as dmesh_flatten()). Cached
 *       in the universe by layout: the communicator is the one that
 *       dmesh_flatten() without info makes of the slice of the kept
 *       dimensions (the same handle, whichever call comes first), and a
 *       second call creates nothing. Needs no names: works on unnamed
 *       meshes, and registers none. A single kept dimension d gives the
 *       members and order of dmesh_get_comm(mesh, d) (the same handle when
 *       the mesh's communicators were made without info).
 */
DMESH_EXPORT int dmesh_get_sub_comm(dmesh_t mesh, const int remain_dims[], MPI_Comm *newcomm);

/**
 * \brief Save a mesh as a versioned, self-describing text (PyTorch's
 *        pickling of a DeviceMesh), without its communicators: device type,
 *        rank map ("identity" when it is one), the root mesh's dimensions,
 *        the names registered on the root by dmesh_flatten(), and the mesh's
 *        dimensions with their backend options. snprintf rules.
 * \param[in] mesh the mesh
 * \param[out] buf buffer (may be NULL when \p len is 0)
 * \param[in] len capacity of \p buf
 * \param[out] needed length of the full text without the NUL (may be NULL)
 * \return DMESH_SUCCESS (also when truncated), DMESH_ERR_ARG for a mesh of
 *         dmesh_from_comms() without ranks (its rank map differs between
 *         groups)
 * \note Local. The text is the same on every rank of the root communicator.
 */
DMESH_EXPORT int dmesh_serialize(dmesh_t mesh, char *buf, size_t len, size_t *needed);

/**
 * \brief Rebuild a mesh saved by dmesh_serialize() on a communicator.
 * \param[in] comm communicator the saved ranks refer to (at least as large
 *            as the largest saved rank + 1)
 * \param[in] text NUL-terminated text of dmesh_serialize()
 * \param[in] info options that are not part of the mesh, as for
 *            dmesh_init() (`dmesh_check`, `dmesh_comm_create`, `dmesh_device`,
 *            `dmesh_bind`, `dmesh_nccl_init`); backends come from the text
 * \param[out] mesh the mesh, equal (dmesh_equal()) to the saved one when
 *             \p comm has the same ranks; the names registered by
 *             dmesh_flatten() are registered again, with their communicators
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a malformed text (the detail gives
 *         line, column and byte offset), DMESH_ERR_SIZE when \p comm is too
 *         small, DMESH_ERR_MISMATCH when ranks passed different texts, or
 *         another error class
 * \note Collective over \p comm; starts a new universe. Every rank returns
 *       the same class.
 */
DMESH_EXPORT int dmesh_deserialize(MPI_Comm comm, const char *text, MPI_Info info, dmesh_t *mesh);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Version and build
 * @{ */

/**
 * \brief Version of the dmesh library the program runs with.
 *
 * The DMESH_VERSION_* macros of dmesh_version.h give the version of the
 * headers a program was compiled with; this call gives the library's, which
 * differ when the program runs with another libdmesh than it was built with.
 * \param[out] major major version
 * \param[out] minor minor version
 * \param[out] patch patch level
 * \return DMESH_SUCCESS, DMESH_ERR_ARG if a pointer is NULL
 * \note Local; may be called before MPI_Init and from any thread.
 */
DMESH_EXPORT int dmesh_get_version(int *major, int *minor, int *patch);

/**
 * \brief How the library was built, as text of "key: value" lines.
 *
 * The lines give the dmesh version, the MPI the library was compiled with
 * (vendor and version, MPI standard level; "MPI: standard ABI (MPI 5.0)" for
 * a build against the MPI-5 standard ABI, which runs under any MPI that
 * ships libmpi_abi.so.1), the MPI C compiler and mpiexec,
 * whether CUDA, NCCL, hwloc and the Fortran modules are built in, and the
 * configure arguments. `dmesh-info --config` prints it.
 * \param[out] text a static, NUL-terminated string (never freed)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG if \p text is NULL
 * \note Local; may be called before MPI_Init and from any thread.
 */
DMESH_EXPORT int dmesh_get_build_info(const char **text);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Fault tolerance
 * With an MPI that survives a lost process (ULFM: Open MPI 5 or 6 launched
 * with `mpiexec --with-ft ulfm`; not through the MPI-5 standard ABI), a
 * collective call of dmesh on a universe that lost a process returns
 * DMESH_ERR_PROC_FAILED on every survivor instead of hanging. The survivors then revoke the
 * universe (dmesh_revoke()), make a smaller mesh on the survivors (dmesh_shrink()), restore their
 * state and go on. Without fault tolerance these calls return DMESH_ERR_UNSUPPORTED.
 * @{ */

/** \brief dmesh_shrink() dim value: keep every dimension's size (the failed
 *  processes are replaced by spares, info `dmesh_spares=true`). */
#define DMESH_KEEP_SHAPE (-1)

/**
 * \brief Revoke the universe of \p mesh: its private communicator, every
 *        MPI communicator it made here (MPIX_Comm_revoke) and its NCCL
 *        communicators (ncclCommRevoke where NCCL has it, 2.27 and later,
 *        which keeps them for dmesh_shrink(); else ncclCommAbort), so that
 *        every process blocked in one of them, in dmesh or in the
 *        application, returns.
 *
 * A revocation reaches the members of each communicator revoked: the
 * private one (every process of the universe) and the caller's groups. A
 * process blocked in a group of which the caller is no member returns when
 * one of that group's members revokes, or meets the failure: every survivor
 * that meets an error calls dmesh_revoke().
 * \param[in] mesh any mesh of the universe
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a bad handle,
 *         DMESH_ERR_UNSUPPORTED without fault tolerance (the detail says how
 *         to get it), or the class of a failed revocation
 * \note Local; revoking twice is harmless. Afterwards the collective calls
 *       on the universe return DMESH_ERR_PROC_FAILED (they communicate no
 *       more than the failure-aware agreement, which a revoked communicator
 *       still supports), MPI calls on its communicators return
 *       MPIX_ERR_REVOKED, local queries still answer, and dmesh_shrink()
 *       and dmesh_free() work. Revocation reaches every process of the
 *       universe (and the communicator the universe was made on is
 *       unusable for new meshes: make them on the survivors). Needs the
 *       thread level of the calls it interrupts.
 */
DMESH_EXPORT int dmesh_revoke(dmesh_t mesh);

/**
 * \brief The failed processes this process knows of in the universe of
 *        \p mesh (MPIX_Comm_get_failed on its private communicator).
 * \param[in] mesh any mesh of the universe
 * \param[in] maxranks room in \p ranks
 * \param[out] ranks the failed ranks, ascending, as ranks of the
 *             communicator the root mesh was made from (the first
 *             \p maxranks of them; NULL allowed when \p maxranks is 0)
 * \param[out] nfailed how many processes failed (may exceed \p maxranks)
 * \return DMESH_SUCCESS, DMESH_ERR_ARG for a bad handle or pointer or a
 *         negative \p maxranks, DMESH_ERR_UNSUPPORTED without fault
 *         tolerance, DMESH_ERR_MPI when the MPI call failed
 * \note Local. What a process knows grows as failures are detected: two
 *       processes may list different sets until an agreement (any
 *       collective call of dmesh, or dmesh_shrink()) has seen them.
 */
DMESH_EXPORT int dmesh_get_failed(dmesh_t mesh, int maxranks, int ranks[], int *nfailed);

/**
 * \brief A mesh of the surviving processes: revokes the universe of
 *        \p mesh, shrinks its communicator to the survivors
 *        (MPIX_Comm_shrink) and creates a new mesh on them, in a new
 *        universe, with the names and device type of \p mesh.
 *
 * Dimension \p dim of the new mesh is shorter by every index whose slice
 * held a failed process; the other dimensions keep their sizes, and the
 * survivors keep their relative order in the mesh tensor. With info
 * `dmesh_spares=true` the survivors outside \p mesh (a mesh smaller than its
 * communicator keeps them as spares) first take the coordinates of the
 * failed processes, the lowest failed rank first and the lowest spare first;
 * only the failures left over shorten \p dim. With \p dim =
 * DMESH_KEEP_SHAPE no dimension may shrink. Survivors outside the new mesh
 * get a mesh of which they are not members. The other info keys are those
 * of dmesh_create().
 * \param[in] mesh a mesh whose mesh tensor is the same on every process (a
 *            root mesh, or one copy of it)
 * \param[in] dim the dimension to shorten, or DMESH_KEEP_SHAPE
 * \param[in] info `dmesh_spares` and dmesh_create() keys, or MPI_INFO_NULL
 * \param[out] survivors unless NULL: a new communicator of every survivor
 *             of the universe's communicator in their old relative order,
 *             owned by the caller (free it with MPI_Comm_free); the new
 *             mesh's ranks are ranks of it; MPI_COMM_NULL when the call fails
 * \param[out] newmesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle or \p dim;
 *         DMESH_ERR_SIZE when \p dim would lose every index, or when
 *         DMESH_KEEP_SHAPE is asked and the spares do not suffice;
 *         DMESH_ERR_UNSUPPORTED without fault tolerance; DMESH_ERR_PROC_FAILED
 *         when a process fails during the call; or a class of dmesh_create()
 * \note Collective over the surviving processes of the universe's
 *       communicator, whether or not they have revoked it yet; every
 *       survivor returns the same class. Shrinking a shrunk mesh works the
 *       same way. \p mesh stays valid (revoked): free it with dmesh_free().
 *       NCCL communicators of the new mesh: when \p mesh and the new mesh
 *       both use `dmesh_nccl_create=split`, the new root is made by
 *       ncclCommShrink of the old universe's root and the dimensions are
 *       split from it, where NCCL has ncclCommRevoke and ncclCommShrink and
 *       no spare took a place; otherwise they are bootstrapped anew.
 */
DMESH_EXPORT int dmesh_shrink(dmesh_t mesh, int dim, MPI_Info info, MPI_Comm *survivors,
                              dmesh_t *newmesh);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Coming back whole: respawn and grow
 * dmesh_respawn() starts one new process for each failed process of a
 * universe and gives back the same mesh: every dimension's communicator of
 * the same shape, each new process at the failed one's rank and
 * coordinate. dmesh_grow() adds processes along one dimension. The new
 * processes call dmesh_join(), which returns the same communicator and mesh.
 *
 * Communicators that hold processes of two launches (the spawning one and
 * the spawned one) must be freed before MPI_Finalize: Open MPI disconnects
 * the ones left there from every peer, which crashes or hangs after a
 * failure. Free the mesh and \p newcomm before MPI_Finalize; dmesh frees
 * its own (the spawn's intercommunicator, the merged one) before it returns.
 * @{ */

/** \brief dmesh_join() reason: the process replaces a failed one
 *  (dmesh_respawn()). */
#define DMESH_JOIN_RESPAWN 1
/** \brief dmesh_join() reason: the process is new (dmesh_grow()). */
#define DMESH_JOIN_GROW 2

/**
 * \brief Replace the failed processes of the universe of \p mesh and make
 *        the same mesh again: revokes the universe, shrinks its communicator
 *        (MPIX_Comm_shrink), starts one process for each failed one
 *        (MPI_Comm_spawn), merges, and orders the result as the old
 *        communicator was, each new process at a failed process's rank; then
 *        makes on it a mesh with the shape, names, device type, rank map,
 *        backends and options of \p mesh. The new processes call
 *        dmesh_join().
 * \param[in] mesh a mesh whose mesh tensor is the same on every process (a
 *            root mesh, or one copy of it)
 * \param[in] command the program to start, as MPI_Comm_spawn's; NULL: the
 *            command that info's `dmesh_respawn_command` (or the variable
 *            DMESH_RESPAWN_COMMAND) names, else the one the launcher
 *            started (MPI_INFO_ENV's "command": a launch wrapper stays in
 *            the chain; a relative path is taken from the launch's "wdir"),
 *            else the running executable
 * \param[in] argv its arguments, as MPI_Comm_spawn's (MPI_ARGV_NULL: none;
 *            with \p command NULL too: this program's own arguments, byte
 *            for byte from /proc/self/cmdline, whatever their length or
 *            spaces, and the whole command line where the launcher started
 *            a wrapper with it, as `mpiexec ./wrap.sh ./prog args` does)
 * \param[in] info MPI_Comm_spawn's keys (host, wdir, ...), dmesh_create()'s
 *            (the dmesh_ and nccl_ keys), `dmesh_respawn_command` and
 *            `dmesh_respawn_hosts`, or MPI_INFO_NULL. Where the new
 *            processes go: MPI_Comm_spawn's reserved key `host` places
 *            them all as the MPI reads it (Open MPI 5 reads it as its
 *            launcher's --host: "h3" is one slot, "h3:2" two, "h3:1,h4:1" a
 *            list); `dmesh_respawn_hosts` (or the variable
 *            DMESH_RESPAWN_HOSTS, unless info has `host`) is a comma list
 *            of host names, "h3" or "h3,h4", on which dmesh places them
 *            itself: the replacements of one lost node go together to one
 *            host (a node-local dimension of a hybrid mesh stays node-local),
 *            the lost nodes taken in order of their lowest rank, one host
 *            each in the list's order (round again when the nodes outnumber
 *            the hosts); all to the first host where the universe does not
 *            know its nodes (they are known after dmesh_init_hybrid(),
 *            `dmesh_order=node`, dmesh_get_dim_locality() or
 *            dmesh_copies_open()). dmesh starts them with
 *            MPI_Comm_spawn_multiple, one command per host, each with the
 *            call's info and that host (with its count for Open MPI); a name
 *            with a character other than letters, digits, '.', '-', '_', an
 *            empty entry, or both keys in info is DMESH_ERR_ARG. The new
 *            processes make the mesh with these
 *            keys and with the DMESH_* variables of this process that shape
 *            a mesh (DMESH_CHECK, DMESH_COMM_CREATE, DMESH_TIMEOUT,
 *            DMESH_STRICT, DMESH_NODE, DMESH_NCCL_CREATE) as keys, so that an
 *            environment that differs there changes nothing
 * \param[out] newcomm the repaired communicator: the old one's size and
 *             order, owned by the caller (free it with MPI_Comm_free before
 *             MPI_Finalize), with the error handler of the communicator the
 *             mesh was made from; it replaces that communicator in the
 *             program. MPI_COMM_NULL when the call fails.
 * \param[out] newmesh the mesh on \p newcomm (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle or pointer, no
 *         command to start, or a bad `dmesh_respawn_hosts`;
 *         DMESH_ERR_UNSUPPORTED without fault tolerance;
 *         DMESH_ERR_PROC_FAILED when a process fails during the call (calling
 *         dmesh_respawn() again on \p mesh retries); DMESH_ERR_SPAWN when the
 *         MPI or its launcher refused to start the processes (the detail
 *         gives the MPI's message and what to try: free slots, `--map-by
 *         :oversubscribe`); or a class of dmesh_deserialize()
 * \note Collective over the surviving processes of the universe's
 *       communicator (members of the mesh and not), revoked or not; every
 *       survivor returns the same class, with nothing made. \p mesh stays
 *       valid (revoked): free it with dmesh_free(). With nothing failed, no
 *       process is started and the mesh is made on the survivors' communicator.
 *       NCCL communicators are bootstrapped anew. Arguments are checked
 *       before anything is revoked: a process whose \p newcomm or
 *       \p newmesh is NULL takes part without revoking. A process that got
 *       a repaired mesh bounds its MPI_Finalize (DMESH_FINALIZE_BOUND,
 *       dmesh(7)). Thread level: the call takes seconds (a spawn); other
 *       threads that call MPI meanwhile need MPI_THREAD_MULTIPLE
 *       (MPI_THREAD_SERIALIZED only where they wait until it returns).
 */
DMESH_EXPORT int dmesh_respawn(dmesh_t mesh, const char *command, char *const argv[], MPI_Info info,
                               MPI_Comm *newcomm, dmesh_t *newmesh);

/**
 * \brief In a process that dmesh_respawn() or dmesh_grow() started: join the
 *        processes that started it and get the same communicator and mesh.
 *
 * What the mesh needs (shape, names, rank map, options, the reason) comes
 * from the parents in one message with a magic number and a version. A
 * process whose parent sends something else gets DMESH_ERR_ARG; one whose
 * parent sends nothing within `dmesh_timeout` (default 60 s) gets
 * DMESH_ERR_TIMEOUT (a parent that is not dmesh's, or dmesh's parents
 * late); never a hang. Once the message is dmesh's, this process always
 * meets its parents in the merge, with what went wrong here (a NULL
 * output, a message of another version): they never wait for it.
 * \param[in] info `dmesh_timeout` (the longest wait for the parents'
 *            message), or MPI_INFO_NULL; the mesh's options are the parents'
 * \param[out] reason unless NULL: DMESH_JOIN_RESPAWN (this process replaces
 *             a failed one: fetch its state from a copy) or DMESH_JOIN_GROW
 * \param[out] newcomm the communicator the parents got (its rank here is the
 *             failed process's, or after the old ones for a grow), owned by
 *             the caller, with MPI_COMM_WORLD's error handler at this call,
 *             which the mesh's communicators carry too: set
 *             MPI_ERRORS_RETURN (or the program's handler) on
 *             MPI_COMM_WORLD before this call, or a later failure that this
 *             process meets first ends the job
 * \param[out] newmesh the mesh on \p newcomm
 * \return DMESH_SUCCESS; DMESH_ERR_ARG when the process has no parent, its
 *         parent is not dmesh's, or \p newcomm or \p newmesh is NULL;
 *         DMESH_ERR_TIMEOUT when no message came within `dmesh_timeout`;
 *         the class the parents' call returned when it failed
 *         (DMESH_ERR_PROC_FAILED, DMESH_ERR_SPAWN, ...)
 * \note Collective over the processes started together and with the
 *       parents' dmesh_respawn() or dmesh_grow(). Frees the parent
 *       intercommunicator (MPI_Comm_get_parent gives MPI_COMM_NULL after).
 */
DMESH_EXPORT int dmesh_join(MPI_Info info, int *reason, MPI_Comm *newcomm, dmesh_t *newmesh);

/**
 * \brief Grow dimension \p dim of \p mesh by \p n indices with new
 *        processes (MPI_Comm_spawn): the processes of the communicator keep
 *        their ranks, the new ones come after them in \p newcomm, and the
 *        members keep their coordinates; the new processes call
 *        dmesh_join() and take the new coordinates in row-major order.
 * \param[in] mesh a root mesh (or a copy of one); names that dmesh_flatten()
 *            registered are not carried over (their layouts change)
 * \param[in] dim the dimension to grow
 * \param[in] n how many indices to add (>= 1)
 * \param[in] command as dmesh_respawn()'s
 * \param[in] argv as dmesh_respawn()'s
 * \param[in] info as dmesh_respawn()'s
 * \param[out] newcomm the old communicator's processes, in order, then the
 *             new ones; owned by the caller (free it before MPI_Finalize),
 *             with the error handler of the communicator the mesh was made
 *             from; MPI_COMM_NULL when the call fails
 * \param[out] newmesh the grown mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle, pointer, \p dim or
 *         \p n, or a mesh that is not a root; DMESH_ERR_SIZE when the new
 *         size overflows; DMESH_ERR_SPAWN when the MPI or its launcher
 *         refused to start the processes; or a class of dmesh_deserialize()
 * \note Collective over the universe's communicator; every process returns
 *       the same class. Needs an MPI that spawns (no fault tolerance). \p mesh
 *       stays valid and unchanged.
 */
DMESH_EXPORT int dmesh_grow(dmesh_t mesh, int dim, int n, const char *command, char *const argv[],
                            MPI_Info info, MPI_Comm *newcomm, dmesh_t *newmesh);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Copies in memory
 * The other half of coming back whole: the state of each process, copied
 * in the memory of other processes of the mesh, so that a process that
 * dmesh_respawn() started in place of a failed one gets its predecessor's
 * state back. A program opens its copies once (dmesh_copies_open()),
 * registers the buffers that make up its state (dmesh_copies_add()),
 * stores a version every few steps (dmesh_copies_store()) and, after a
 * failure and dmesh_respawn() or dmesh_join(), opens the same name on the
 * new mesh and calls dmesh_copies_restore().
 *
 * Two schemes (info key `dmesh_copies_scheme`):
 * - `partner` (default): each process keeps its own copy and that of one
 *   other member: the next member along the copies' dimension (a ring).
 *   A version survives the loss of any set of processes that holds no
 *   process together with its partner. Memory: twice the registered bytes
 *   between stores, four times at the peak of a store; copies of 4 MiB and
 *   more also keep the buffers of the version a store replaced, for the
 *   next one, mapped (safe for RDMA writes), at most the size of those in
 *   use: between stores a process holds the memory of a store's peak.
 * - `xor`: the members along the dimension form sets of k
 *   (`dmesh_copies_group`, default 4; the last set takes the rest when
 *   fewer than two would be left); each keeps its own copy and 1/(k-1) of
 *   the set's parity (XOR), as SCR's XOR scheme does: one failure per set
 *   is recovered.
 *
 * Where the copies go. By default every copy, and every member of an XOR
 * set, is in another failure domain than its owner whenever the members
 * span more than one domain, for any shape, dimension order and placement
 * of the processes: the members are ordered by domain and each copy is
 * held as many members further as the largest domain has members (SCR's
 * partner rule), XOR sets take one member of each domain in turn (so a
 * set has fewer than k members when there are fewer domains than k). A
 * domain is the node (as dmesh finds nodes: the host), or the value of
 * info key `dmesh_copies_domain` or environment variable
 * `DMESH_COPIES_DOMAIN` (per process; processes with equal values are one
 * domain: a rack, a switch, a power feed). Where one domain holds more
 * than half of the members, some copies stay in their owner's domain, and
 * dmesh_copies_get_survival() says so for those processes. On one domain
 * the copy goes to the next member of the flattened mesh. Info key
 * `dmesh_copies_dim` (a name or an index) puts the copies along that
 * dimension instead: the next member along it (a ring), sets of k along
 * it.
 *
 * Every copy, held copy and parity carries its owner's identity: a
 * process's own, drawn at its first dmesh_copies_open() of the name, or,
 * for a process that took a failed one's place (dmesh_respawn(), or a
 * spare from dmesh_shrink()), its predecessor's. A restore gives each
 * process its own state or DMESH_ERR_DATA_LOST, never another's, after any
 * sequence of dmesh_shrink(), dmesh_respawn(), dmesh_grow() and restores.
 * A process without predecessor (one that dmesh_grow() added, or one that
 * had no copies and whose place no failed process held) gets nothing
 * back: its restore returns DMESH_COPIES_NONE and leaves its buffers as
 * they are, while the others get their version.
 *
 * The copies are the process's, kept by name, not the mesh's: after
 * dmesh_respawn() the survivors open the same name on the new mesh and
 * find their copies and registered buffers there; a new process's copies
 * start empty. Contiguous datatypes are copied with memcpy, others with
 * MPI_Pack. On a "cuda" mesh a buffer may be device memory (or managed
 * memory, as cudaPointerGetAttributes() tells): it needs a contiguous
 * datatype and is copied with one cudaMemcpy() each way, to the store's
 * host copy and back at a restore; the copies themselves, and what goes
 * between processes, stay in host memory. On a "cpu" mesh buffers are
 * host memory.
 *
 * Threads (MPI_THREAD_MULTIPLE): threads may store, restore and free
 * copies of different handles at once (each handle has communicators of
 * its own), and open copies at once on meshes of different universes;
 * two opens on meshes of one universe must not run at once, as two
 * collective calls on one communicator must not (an open is collective
 * over the universe's communicator), and neither must an open and a
 * dmesh_repair() of that universe. dmesh_revoke() may come from any thread
 * while another frees a handle. One handle is used by one thread at a
 * time, except dmesh_copies_get_partners() and
 * dmesh_copies_get_survival(), which any thread may call even while
 * another frees the handle (DMESH_ERR_ARG once it is freed).
 * @{ */

/** \brief Handle of a process's copies (opaque). */
typedef struct dmesh_copies_s *dmesh_copies_t;
/** \brief The null copies handle. */
#define DMESH_COPIES_NULL ((dmesh_copies_t)0)
/** \brief Version: nothing stored yet (dmesh_copies_restore()). */
#define DMESH_COPIES_NONE (-1)

/**
 * \brief Open this process's copies called \p name on \p mesh.
 *
 * The first time the copies are empty. When the process opened \p name
 * before (on the mesh that dmesh_respawn() replaced), its copies and
 * registered buffers move to \p mesh and the old handle no longer works
 * (free it with dmesh_copies_free()); a process that dmesh_respawn()
 * started opens empty copies and registers its buffers, then calls
 * dmesh_copies_restore().
 * \param[in] mesh the mesh (a root mesh or one derived from it)
 * \param[in] name the copies' name, at most DMESH_MAX_NAME - 1 bytes
 * \param[in] info `dmesh_copies_dim`, `dmesh_copies_scheme` (`partner` or
 *            `xor`), `dmesh_copies_group` (k for `xor`, 2 to 512),
 *            `dmesh_copies_domain` (this process's failure domain), or
 *            MPI_INFO_NULL. Processes that carry copies keep the dimension
 *            their copies were stored along.
 * \param[out] copies the handle (DMESH_COPIES_NULL on failure)
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle, pointer, name or
 *         info value (a `dmesh_copies_dim` that names no dimension: the
 *         detail lists the mesh's names, as for every option that names a
 *         dimension);
 *         DMESH_ERR_MISMATCH when the processes passed different names,
 *         schemes, groups or dimensions, or some named a domain and
 *         others did not (agreed before any communicator is made); DMESH_ERR_PROC_FAILED,
 *         DMESH_ERR_MPI, DMESH_ERR_NOMEM
 * \note Collective over the communicator the mesh was made from (members
 *       of the mesh and not, as dmesh_flatten()); every process returns the
 *       same class. A process outside the mesh gets a handle whose store
 *       and restore do nothing. The first call on a universe may find its
 *       nodes (dmesh_get_dim_locality()). When the open fails on a mesh of
 *       another universe than the handle that has the copies (a repair's
 *       new mesh), the copies leave that handle and wait in the process for
 *       the next open: freeing the old handle then frees nothing of them.
 *       Where the copies go: while some member lacks its own copy (a
 *       replacement that has not restored yet), the copies and parities
 *       held stay placed as they were made, found again by identity: a
 *       replacement on another host or in a new domain, or one whose mesh
 *       was shrunk or grown meanwhile, finds the partner and the XOR set
 *       its predecessor had; the next store places the copies where the
 *       members' failure domains ask. When every member holds its own copy
 *       and the placement the domains ask differs from the held one (the
 *       domains moved, a shrink, a grow), the open places them anew and
 *       makes the held copies or parities again there before the old ones
 *       go (one store's moves).
 */
DMESH_EXPORT int dmesh_copies_open(dmesh_t mesh, const char *name, MPI_Info info,
                                   dmesh_copies_t *copies);

/**
 * \brief Register buffer \p id of this process's state: \p count elements
 *        of \p type at \p buf. The same \p id again replaces it.
 * \param[in] copies the copies
 * \param[in] id the buffer's number (>= 0), the same on the process that
 *            replaces this one
 * \param[in] buf the buffer, kept by the copies: it must stay valid until
 *            it is replaced or the copies are freed; host memory, or on a
 *            "cuda" mesh also device or managed memory with a contiguous
 *            \p type
 * \param[in] count number of elements (>= 0)
 * \param[in] type any datatype MPI_Pack takes (a committed one); kept by
 *            the copies: do not free it while registered
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle, id, count or
 *         type (a type that is not contiguous is packed with MPI_Pack,
 *         which counts in int: \p count times the type's size, and the
 *         packed size, at most INT_MAX bytes; and host memory);
 *         DMESH_ERR_NOMEM; DMESH_ERR_CUDA or
 *         DMESH_ERR_BACKEND when the CUDA runtime cannot say what \p buf is
 * \note Local. A store or restore whose cudaMemcpy() fails returns
 *       DMESH_ERR_CUDA on every process (agreed).
 */
DMESH_EXPORT int dmesh_copies_add(dmesh_copies_t copies, int id, void *buf, MPI_Count count,
                                  MPI_Datatype type);

/**
 * \brief Register buffer \p id of this process's state whose number of
 *        elements changes (particles that migrate, an adaptive mesh's
 *        cells): up to \p room elements of \p type at \p buf, of which
 *        \p *count are in use.
 *
 * A store keeps the \p *count elements the buffer holds at that moment;
 * a restore writes the stored elements back and sets \p *count to their
 * number, so that a process that dmesh_respawn() started learns its
 * predecessor's count without any bookkeeping of its own. One version
 * covers every registered buffer, sized or not. The same \p id again
 * replaces the registration.
 * \param[in] copies the copies
 * \param[in] id the buffer's number (>= 0), the same on the process that
 *            replaces this one
 * \param[in] buf room for \p room elements, kept by the copies (valid
 *            until replaced or the copies are freed); memory as for
 *            dmesh_copies_add()
 * \param[in] room the most elements \p buf holds (>= 0)
 * \param[in,out] count the elements in use, read by every store (0 to
 *                \p room, else the store fails with DMESH_ERR_ARG on
 *                every process) and written by a restore; kept by the
 *                copies
 * \param[in] type any datatype MPI_Pack takes (a committed one)
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle, id, room, type or
 *         a NULL \p count; DMESH_ERR_NOMEM; DMESH_ERR_CUDA or
 *         DMESH_ERR_BACKEND as dmesh_copies_add()
 * \note Local. A restore whose stored count exceeds the registered \p room
 *       is DMESH_ERR_MISMATCH on every process, nothing restored, the
 *       detail naming the count: register room for the most elements a
 *       process may hold.
 */
DMESH_EXPORT int dmesh_copies_add_sized(dmesh_copies_t copies, int id, void *buf, MPI_Count room,
                                        MPI_Count *count, MPI_Datatype type);

/**
 * \brief Store version \p version of every registered buffer: here and at
 *        its holders (the partner, or the XOR set's parity).
 *
 * All or nothing: the older version is dropped only once every process
 * holds the new one.
 * \param[in] copies the copies
 * \param[in] version greater than the last version stored or restored
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle or a version not
 *         greater than the last; DMESH_ERR_MISMATCH when the processes
 *         passed different versions; DMESH_ERR_PROC_FAILED when a process
 *         failed during the call (the previous version stays the newest
 *         whole one); DMESH_ERR_MPI, DMESH_ERR_NOMEM, DMESH_ERR_CUDA
 * \note Collective over the mesh's members; every process returns the
 *       same class. Copies may be of any size memory allows (2^31 bytes
 *       and more). With buffers in device memory the store calls
 *       cudaDeviceSynchronize() before its copies to the host: the work the
 *       program queued on the device (kernels on any stream, non-blocking
 *       ones too, as PyTorch's and NCCL's are) ends before its buffers are
 *       copied; cudaMemcpy() alone waits for blocking streams only.
 */
DMESH_EXPORT int dmesh_copies_store(dmesh_copies_t copies, int version);

/**
 * \brief Give every process's buffers the newest version that every member
 *        can get back: its own copy, or for a process that replaced a
 *        failed one, its predecessor's copy from the holders.
 *
 * Survivors roll back to that version too. On return redundancy is whole
 * again: a new process holds the copies its predecessor held for others,
 * so a failure right after the restore loses nothing.
 * \param[in] copies the copies
 * \param[out] version the version restored, DMESH_COPIES_NONE when nothing
 *             was stored (buffers untouched)
 * \return DMESH_SUCCESS; DMESH_ERR_DATA_LOST when a process and every
 *         holder of its copy failed together (nothing restored, every
 *         buffer untouched, on every process); DMESH_ERR_MISMATCH when the
 *         registered ids or sizes differ from what was stored;
 *         DMESH_ERR_PROC_FAILED when a process failed during the call;
 *         DMESH_ERR_ARG, DMESH_ERR_MPI, DMESH_ERR_NOMEM, DMESH_ERR_CUDA
 * \note Collective over the mesh's members; every process returns the
 *       same class. With buffers in device memory the restore calls
 *       cudaDeviceSynchronize() after its copies to the device (a copy from
 *       pageable host memory may return before it lands): on return the
 *       bytes are in device memory for kernels on any stream.
 */
DMESH_EXPORT int dmesh_copies_restore(dmesh_copies_t copies, int *version);

/**
 * \brief The processes holding this process's copy: its partner, or the
 *        other members of its XOR set, as ranks of the communicator the
 *        mesh was made from (ascending for `xor`).
 * \param[in] copies the copies
 * \param[in] maxranks capacity of \p ranks
 * \param[out] ranks the ranks (may be NULL when \p maxranks is 0)
 * \param[out] n how many there are (0 on a mesh of one member, or outside
 *             the mesh); at most \p maxranks are written
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 * \note Local.
 */
DMESH_EXPORT int dmesh_copies_get_partners(dmesh_copies_t copies, int maxranks, int ranks[],
                                           int *n);

/** \brief dmesh_copies_get_survival(): no other process holds a copy (a
 *         mesh of one member, or a set of one) */
#define DMESH_COPIES_SURVIVES_NOTHING 0
/** \brief dmesh_copies_get_survival(): the copies survive the loss of this
 *         process (another process of its domain holds them) */
#define DMESH_COPIES_SURVIVES_PROCESS 1
/** \brief dmesh_copies_get_survival(): the copies survive the loss of this
 *         process's whole failure domain (its node, or its
 *         `dmesh_copies_domain`) */
#define DMESH_COPIES_SURVIVES_DOMAIN 2

/**
 * \brief What this process's copies survive, as they are placed.
 * \param[in] copies the copies
 * \param[out] kind DMESH_COPIES_SURVIVES_DOMAIN when no other holder of
 *             its copy (its partner, the other members of its XOR set)
 *             shares its failure domain; DMESH_COPIES_SURVIVES_PROCESS
 *             when one does (the members span one domain, or one domain
 *             holds more than half of them); DMESH_COPIES_SURVIVES_NOTHING
 *             on a mesh of one member, or outside the mesh
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 * \note Local. A store succeeds whatever this says.
 */
DMESH_EXPORT int dmesh_copies_get_survival(dmesh_copies_t copies, int *kind);

/**
 * \brief Free a copies handle and, unless its name was opened again on
 *        another mesh since (or an open on another mesh failed since,
 *        which keeps the copies for the next open), the process's copies
 *        of that name.
 * \param[in,out] copies the handle; DMESH_COPIES_NULL afterwards
 *                (DMESH_COPIES_NULL is accepted)
 * \return DMESH_SUCCESS or DMESH_ERR_ARG
 * \note Local.
 */
DMESH_EXPORT int dmesh_copies_free(dmesh_copies_t *copies);

/**
 * \brief Start a fault-tolerant program's mesh: on a first launch a mesh
 *        made by dmesh_init() on a duplicate of \p comm, in a process that
 *        dmesh_respawn(), dmesh_repair() or dmesh_grow() started the mesh of
 *        dmesh_join(), so that both take one path (start, open the copies,
 *        register the buffers, restore).
 * \param[in] comm the communicator of a first launch (MPI_COMM_WORLD, say;
 *            duplicated, with its error handler); not read in a new process
 * \param[in] device_type as dmesh_init() (not read in a new process)
 * \param[in] ndims as dmesh_init() (not read in a new process)
 * \param[in] shape as dmesh_init() (not read in a new process)
 * \param[in] dim_names as dmesh_init() (not read in a new process)
 * \param[in] info as dmesh_init() in a first launch, as dmesh_join() in a
 *            new process, or MPI_INFO_NULL
 * \param[out] newcomm the program's communicator for the run: the
 *             duplicate, or the communicator dmesh_join() gives (owned by
 *             the caller; dmesh_repair() replaces it); MPI_COMM_NULL on
 *             failure
 * \param[out] mesh the mesh on \p newcomm (DMESH_NULL on failure)
 * \return a class of dmesh_init() or of dmesh_join()
 * \note Collective as the call it makes: over \p comm on a first launch,
 *       with the processes that started it in a new process.
 */
DMESH_EXPORT int dmesh_start(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                             const char *const dim_names[], MPI_Info info, MPI_Comm *newcomm,
                             dmesh_t *mesh);

/**
 * \brief Agree a step's outcome: \p *ok becomes nonzero on every process
 *        exactly when it was nonzero on every process and no process
 *        failed. With it, every process stores after a good step, or every
 *        one calls dmesh_repair(), and none waits for the others in a call
 *        they never make.
 * \param[in] mesh a mesh of the program (any of its universe)
 * \param[in,out] ok in: whether the step succeeded here; out: agreed
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle or pointer
 * \note Collective over the communicator the mesh was made from (members
 *       and not). Under fault tolerance (ULFM) a process that passes 0
 *       first revokes the mesh's universe (dmesh_revoke()) and that
 *       communicator, so that processes still blocked in the step's calls
 *       return, then the failure-aware agreement decides (MPIX_Comm_agree,
 *       which works on revoked communicators); a process failure makes the
 *       outcome 0 everywhere. Without fault tolerance a process cannot fail
 *       alone and the call is local: \p *ok stays as it is, no
 *       communication.
 */
DMESH_EXPORT int dmesh_agree_step(dmesh_t mesh, int *ok);

/**
 * \brief Repair after a failed step, store or restore: revoke, bring the
 *        processes back (dmesh_respawn() by default; dmesh_shrink() or
 *        spares as info asks), again while processes die during the
 *        repair, replace the program's mesh and communicator, and move
 *        every copies handle opened on the mesh to the new one and restore
 *        it (the program's handles stay valid).
 * \param[in,out] mesh the program's mesh (a root mesh, as dmesh_respawn()
 *                 takes); replaced by the repaired one, the old one freed
 * \param[in,out] comm the communicator \p mesh was made from (the one
 *                 dmesh_start(), dmesh_join() or an earlier repair gave);
 *                 replaced by the repaired one, the old one freed
 * \param[in] info `dmesh_repair` = `respawn` (default: one new process in
 *            each dead one's place, the same mesh), `shrink` (the survivors
 *            on a smaller mesh: `dmesh_repair_dim`, a dimension's name or
 *            index, default 0, loses every index whose slice lost a
 *            process), `spares` (processes outside the mesh take the lost
 *            places: dmesh_shrink() with `dmesh_spares`); the other keys
 *            go to dmesh_respawn() or dmesh_shrink(); or MPI_INFO_NULL
 * \param[out] version the version the first copies handle opened on the
 *             mesh (in the order this process opened them) restored:
 *             DMESH_COPIES_NONE when none was stored, or no handle was
 *             opened on the mesh
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a bad handle, pointer, a \p comm
 *         that is not \p mesh's, or a bad info value (on any process: every
 *         process returns it, before anything is revoked);
 *         DMESH_ERR_UNSUPPORTED without fault tolerance; DMESH_ERR_SPAWN
 *         when no process could be started (\p mesh and \p comm stay);
 *         DMESH_ERR_DATA_LOST when a process and every holder of its copy
 *         died: the processes are back (\p mesh and \p comm replaced) but
 *         nothing was restored, the copies stay for a later store; another
 *         class of dmesh_copies_restore() likewise
 * \note Collective over the survivors of the communicator the mesh was
 *       made from, with the processes it starts: every survivor returns the
 *       same class. A process that the repair starts runs the program's
 *       start (dmesh_start(), then dmesh_copies_open(), dmesh_copies_add()
 *       and dmesh_copies_restore() for each name, in the order the
 *       survivors opened them); where one of those fails with
 *       DMESH_ERR_PROC_FAILED it calls dmesh_repair() too, and opens after
 *       it the names it had no handle of yet. Between dmesh_start() and
 *       its restores a new process makes no other collective call (the
 *       survivors' repair is in its opens and restores then): derived
 *       meshes (dmesh_flatten(), ...) are made after them, by every
 *       process. Copies opened on other meshes of the universe are not
 *       moved. What it costs: the calls a
 *       hand-written repair makes (a revocation, dmesh_respawn(), an open
 *       and a restore per handle) and one failure-aware agreement of the
 *       arguments. Thread level as dmesh_respawn().
 */
DMESH_EXPORT int dmesh_repair(dmesh_t *mesh, MPI_Comm *comm, MPI_Info info, int *version);
/** @} */

/* ------------------------------------------------------------------------ */
/** \name Dimensions by name
 * Every call that takes a dimension index has a twin that takes the
 * dimension's name instead, named after it with `_by_name`
 * (PyTorch's `mesh.get_group("tp")` is dmesh_get_comm_by_name(mesh, "tp",
 * &comm)). A separate call, rather than a string that may hold either,
 * keeps a name from ever being read as an index: a dimension may be called
 * "1" or "2d". Each twin behaves as its index form on the dimension of
 * that name: same outputs, same error classes, raised on the same error
 * handler, the same collectiveness and thread safety; a name the mesh does
 * not have is DMESH_ERR_NAME, whose detail names it and the mesh's names
 * ("dmesh_get_local_rank_by_name: no dimension "tq" in mesh (dp, cp,
 * tp)"), and a NULL name is DMESH_ERR_ARG. In a collective twin
 * (dmesh_unflatten_by_name(), dmesh_shrink_by_name(), dmesh_grow_by_name())
 * a name that fails fails where a bad index fails, before the ranks agree,
 * so that every rank returns the same class.
 *
 * Options that name a dimension (`dmesh_backend.<dim>`, `nccl_<field>.<dim>`,
 * `dmesh_copies_dim`) take a value that is exactly a dimension's name as that
 * name, otherwise a decimal index.
 * @{ */

/**
 * \brief dmesh_get_dim_size() of the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[out] size the size of that dimension
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG for a bad handle or a NULL argument
 * \note Local; any thread, at any MPI thread level.
 */
DMESH_EXPORT int dmesh_get_dim_size_by_name(dmesh_t mesh, const char *dim_name, int *size);

/**
 * \brief dmesh_get_local_rank() of the dimension called \p dim_name
 *        (PyTorch's `mesh.get_local_rank("tp")`).
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[out] rank the caller's rank in that dimension's communicator
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG for a bad handle or a NULL argument,
 *         DMESH_ERR_NOT_MEMBER for a non-member
 * \note Local; any thread, at any MPI thread level.
 */
DMESH_EXPORT int dmesh_get_local_rank_by_name(dmesh_t mesh, const char *dim_name, int *rank);

/**
 * \brief dmesh_get_group_ranks() of the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[in] maxranks capacity of \p ranks (>= the size of that dimension)
 * \param[out] ranks the members of the caller's group, ranks of the root
 *             communicator, in local-rank order
 * \param[out] nranks number written
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG, DMESH_ERR_NOT_MEMBER for a non-member
 * \note Local; any thread, at any MPI thread level.
 */
DMESH_EXPORT int dmesh_get_group_ranks_by_name(dmesh_t mesh, const char *dim_name, int maxranks,
                                               int ranks[], int *nranks);

/**
 * \brief dmesh_get_comm() of the dimension called \p dim_name (PyTorch's
 *        `mesh.get_group("tp")`).
 *
 * The communicator belongs to the mesh's universe and goes with its last
 * mesh (dmesh_free()): never free it.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[out] comm borrowed communicator (do not free); MPI_COMM_NULL for a
 *             non-member and when the call fails
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG for a bad handle or a NULL argument
 * \note Local, as dmesh_get_comm(); any thread may call it concurrently.
 */
DMESH_EXPORT int dmesh_get_comm_by_name(dmesh_t mesh, const char *dim_name, MPI_Comm *comm);

/**
 * \brief dmesh_shift() along the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[in] disp displacement \param[in] periodic nonzero: wrap around
 * \param[out] source rank to receive from, or MPI_PROC_NULL
 * \param[out] dest rank to send to, or MPI_PROC_NULL
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG, DMESH_ERR_NOT_MEMBER for a non-member
 * \note Local; any thread, at any MPI thread level.
 */
DMESH_EXPORT int dmesh_shift_by_name(dmesh_t mesh, const char *dim_name, int disp, int periodic,
                                     int *source, int *dest);

/**
 * \brief dmesh_get_all_groups() of the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[in] maxgroups rows of \p ranks
 * \param[in] maxranks length of a row
 * \param[out] ranks row-major maxgroups x maxranks array of the groups
 * \param[out] ngroups number of groups \param[out] size ranks per group
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG, DMESH_ERR_NOT_MEMBER as dmesh_get_all_groups()
 * \note Local; any thread, at any MPI thread level.
 */
DMESH_EXPORT int dmesh_get_all_groups_by_name(dmesh_t mesh, const char *dim_name, int maxgroups,
                                              int maxranks, int ranks[], int *ngroups, int *size);

/**
 * \brief dmesh_get_dim_locality() of the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name a dimension name
 * \param[out] kind DMESH_LOCALITY_NODE, _ACROSS or _MIXED
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks, or a
 *         class of dmesh_get_dim_locality()
 * \note As dmesh_get_dim_locality(): the first call on a universe whose
 *       nodes are not known yet is collective over the root communicator.
 */
DMESH_EXPORT int dmesh_get_dim_locality_by_name(dmesh_t mesh, const char *dim_name, int *kind);

/**
 * \brief dmesh_unflatten() of the dimension called \p dim_name.
 * \param[in] mesh the mesh \param[in] dim_name the dimension to split
 * \param[in] n number of new dimensions \param[in] sizes their sizes
 * \param[in] dim_names their names (NULL for an unnamed mesh)
 * \param[in] info options, or MPI_INFO_NULL
 * \param[out] out the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks, or a
 *         class of dmesh_unflatten()
 * \note Collective over the root communicator, as dmesh_unflatten(); every
 *       rank returns the same class.
 */
DMESH_EXPORT int dmesh_unflatten_by_name(dmesh_t mesh, const char *dim_name, int n,
                                         const int sizes[], const char *const dim_names[],
                                         MPI_Info info, dmesh_t *out);

/**
 * \brief dmesh_shrink() shortening the dimension called \p dim_name.
 *
 * dmesh_shrink()'s sentinel DMESH_KEEP_SHAPE names no dimension and has no
 * name form: to keep the shape, call dmesh_shrink() with it.
 * \param[in] mesh the mesh \param[in] dim_name the dimension to shorten
 * \param[in] info as dmesh_shrink()'s
 * \param[out] survivors unless NULL: as dmesh_shrink()'s
 * \param[out] newmesh the new mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG for a NULL name, or a class of dmesh_shrink()
 * \note Collective over the surviving processes, as dmesh_shrink(); every
 *       survivor returns the same class.
 */
DMESH_EXPORT int dmesh_shrink_by_name(dmesh_t mesh, const char *dim_name, MPI_Info info,
                                      MPI_Comm *survivors, dmesh_t *newmesh);

/**
 * \brief dmesh_grow() along the dimension called \p dim_name.
 * \param[in] mesh a root mesh \param[in] dim_name the dimension to grow
 * \param[in] n how many indices to add (>= 1)
 * \param[in] command as dmesh_respawn()'s \param[in] argv as dmesh_respawn()'s
 * \param[in] info as dmesh_respawn()'s
 * \param[out] newcomm as dmesh_grow()'s
 * \param[out] newmesh the grown mesh (DMESH_NULL when the call fails)
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks, or a
 *         class of dmesh_grow()
 * \note Collective over the universe's communicator, as dmesh_grow(); every
 *       process returns the same class.
 */
DMESH_EXPORT int dmesh_grow_by_name(dmesh_t mesh, const char *dim_name, int n, const char *command,
                                    char *const argv[], MPI_Info info, MPI_Comm *newcomm,
                                    dmesh_t *newmesh);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* DMESH_H_MPI */
